import { useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { useDocumentTitle } from '@/lib/use-document-title';
import { StreamGrid } from '@/features/streams/components/stream-grid';
import { BUILT_IN_STREAMS } from '@/features/streams/data/streams';
import { usePrefetchParticipantToken } from '@/features/player/hooks/participant-token-prefetch';

export function HomeRoute() {
  const navigate = useNavigate();
  const prefetchParticipantToken = usePrefetchParticipantToken();
  useDocumentTitle('Available Streams');
  return (
    <>
      <div className="mb-6 sm:mb-8">
        <h1 className="text-2xl font-bold tracking-tight text-white sm:text-3xl">
          Available Streams
        </h1>
        <p className="mt-1 text-slate-400">Select a stream to start watching</p>
      </div>
      <StreamGrid
        streams={BUILT_IN_STREAMS}
        hrefFor={paths.player.href}
        onOpen={(href) => void navigate(href)}
        onIntent={prefetchParticipantToken}
      />
    </>
  );
}
