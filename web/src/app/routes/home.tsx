import { useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { uiText } from '@/config/ui-text';
import { useDocumentTitle } from '@/lib/use-document-title';
import { StreamGrid } from '@/features/streams/components/stream-grid';
import { BUILT_IN_STREAMS } from '@/features/streams/data/streams';
import { usePrefetchParticipantToken } from '@/features/player/hooks/use-participant-token-prefetch';

export function HomeRoute() {
  const navigate = useNavigate();
  const prefetchParticipantToken = usePrefetchParticipantToken();
  useDocumentTitle(uiText.home.documentTitle);
  return (
    <>
      <div className="mb-6 sm:mb-8">
        <h1 className="text-2xl font-bold tracking-tight text-white sm:text-3xl">
          {uiText.home.title}
        </h1>
        <p className="mt-1 text-slate-400">{uiText.home.subtitle}</p>
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
