import { lazy } from 'react';
import { Navigate, useParams } from 'react-router';
import { BackToSelection } from '@/components/layout/back-to-selection';
import { paths } from '@/config/paths';
import { fillText, uiText } from '@/config/ui-text';
import { useDocumentTitle } from '@/lib/use-document-title';
import { StreamPlayer } from '@/features/player/components/stream-player';

// The rewind (decision 0088) is a chunk of its own, fetched once the player's first picture is
// there (decision 0093): the join does not wait for it.
const LiveRewind = lazy(() =>
  import('./recordings').then((module) => ({
    default: module.LiveRewind,
  })),
);

// The flight data over the picture (docs/product.md#flight-data), likewise after the first picture.
const PlayerFlightData = lazy(() =>
  import('./flight-data').then((module) => ({ default: module.PlayerFlightData })),
);

// Since when the aircraft is off air, under 'Waiting for video' (docs/product.md#when-there-is-no-picture):
// in the Operations page's chunk, fetched only when that notice shows.
const OffAirSince = lazy(() =>
  import('./operations').then((module) => ({ default: module.OffAirSince })),
);

export function PlayerRoute() {
  const { streamId } = useParams();
  useDocumentTitle(
    streamId
      ? fillText(uiText.player.documentTitle, { streamId })
      : uiText.player.documentTitleWithoutStream,
  );
  if (!streamId) return <Navigate to={paths.home.href()} replace />;

  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between gap-4">
        <BackToSelection short />
        <h1 className="font-mono text-lg font-semibold tracking-wider text-white">{streamId}</h1>
      </div>
      <StreamPlayer
        key={streamId}
        streamId={streamId}
        Rewind={LiveRewind}
        FlightData={PlayerFlightData}
        OffAirSince={OffAirSince}
      />
    </div>
  );
}
