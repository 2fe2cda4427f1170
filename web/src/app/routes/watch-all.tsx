import { lazy } from 'react';
import { paths } from '@/config/paths';
import { uiText } from '@/config/ui-text';
import { BackToSelection } from '@/components/layout/back-to-selection';
import { PageHeader } from '@/components/layout/page-header';
import { useDocumentTitle } from '@/lib/use-document-title';
import { BUILT_IN_STREAMS } from '@/features/streams/data/streams';
import { StreamTile } from '@/features/player/components/stream-tile';

// Each tile's altitude and speed (docs/product.md#flight-data), a chunk fetched once a picture is there.
const TileFlightData = lazy(() =>
  import('./flight-data').then((module) => ({ default: module.TileFlightData })),
);

/** Every aircraft at once (docs/product.md#watch-all): one tile, and one session, per stream. */
export function WatchAllRoute() {
  useDocumentTitle(uiText.watchAll.documentTitle);
  return (
    <>
      <PageHeader
        title={uiText.watchAll.title}
        subtitle={uiText.watchAll.subtitle}
        action={<BackToSelection />}
      />
      <ul
        className="grid grid-cols-1 gap-6 md:grid-cols-2 lg:grid-cols-3"
        aria-label={uiText.watchAll.tileList}
      >
        {BUILT_IN_STREAMS.map((stream) => (
          <li key={stream.id}>
            <StreamTile
              streamId={stream.id}
              href={paths.player.href(stream.id)}
              FlightData={TileFlightData}
            />
          </li>
        ))}
      </ul>
    </>
  );
}
