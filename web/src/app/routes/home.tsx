import { LayoutGrid } from 'lucide-react';
import { startTransition, useEffect } from 'react';
import { Link, useNavigate } from 'react-router';
import { recordingsPage, watchAllPage } from '@/app/lazy-pages';
import { paths } from '@/config/paths';
import { uiText } from '@/config/ui-text';
import { PageHeader } from '@/components/layout/page-header';
import { opensInThisPage } from '@/lib/opens-in-this-page';
import { useDocumentTitle } from '@/lib/use-document-title';
import { useOpenIntent } from '@/lib/use-open-intent';
import { StreamGrid } from '@/features/streams/components/stream-grid';
import { BUILT_IN_STREAMS } from '@/features/streams/data/streams';
import {
  useJoinIntent,
  usePrefetchParticipantToken,
  useStartEarlySession,
} from '@/features/player/hooks/use-participant-token-prefetch';

const EVERY_STREAM = BUILT_IN_STREAMS.map((stream) => stream.id);
/** What a person does on the page before a click: none of it happens in a tab left alone. */
const SIGNS_OF_LIFE = ['pointermove', 'pointerdown', 'keydown', 'wheel', 'touchstart'];
/**
 * How long after a sign of life the joins on standby start: a click that is itself the first
 * sign of life leaves the page before, and spends no joins on the streams it does not open.
 */
export const STANDBY_AFTER_MS = 150;

const HEADER_LINK =
  'inline-flex items-center gap-2 rounded-lg border border-slate-700 bg-slate-900 px-3.5 py-2 text-sm font-semibold text-slate-100 shadow-sm transition hover:border-sky-500/60 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:ring-offset-2 focus-visible:ring-offset-slate-950 focus-visible:outline-none';

export function HomeRoute() {
  const navigate = useNavigate();
  const prefetchParticipantToken = usePrefetchParticipantToken();
  const joinIntent = useJoinIntent();
  const startEarlySession = useStartEarlySession();
  // 'Watch all' opens every stream: as a card does for its own, a mouse resting on it or the
  // keyboard's focus start every tile's join, and its leaving or blur leaves them (decision
  // 0091); a press fetches every token (decision 0040).
  const watchAllIntent = useOpenIntent({
    onPrefetch: () => {
      for (const stageId of EVERY_STREAM) prefetchParticipantToken(stageId);
    },
    onJoin: () => joinIntent.intend(EVERY_STREAM),
    onEnd: () => joinIntent.forgo(EVERY_STREAM),
  });
  // What an intent joined and no click took ends with the page (a click's joins are the player's).
  useEffect(() => joinIntent.forgoAll, [joinIntent]);
  // The viewer's first sign of life on the page joins every stream on standby, and the next one
  // after they lapse joins again: the click then only shows its stream (decision 0112).
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const standBy = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        joinIntent.standBy(EVERY_STREAM);
        if (!watchAllPage.loaded()) watchAllPage.preload();
      }, STANDBY_AFTER_MS);
    };
    for (const type of SIGNS_OF_LIFE) addEventListener(type, standBy, { passive: true });
    return () => {
      clearTimeout(timer);
      for (const type of SIGNS_OF_LIFE) removeEventListener(type, standBy);
    };
  }, [joinIntent]);
  useDocumentTitle(uiText.home.documentTitle);
  return (
    <>
      <PageHeader
        title={uiText.home.title}
        subtitle={uiText.home.subtitle}
        action={
          <div className="flex flex-wrap gap-2">
            <Link
              to={paths.recordings.href()}
              onPointerEnter={recordingsPage.preload}
              onFocus={recordingsPage.preload}
              className={HEADER_LINK}
            >
              {uiText.home.recordings}
            </Link>
            <Link
              to={paths.watchAll.href()}
              aria-label={uiText.home.watchAllLabel}
              // The page loads when first opened: fetched as the pointer or focus comes to its link.
              onPointerEnter={(event) => {
                watchAllPage.preload();
                watchAllIntent.onPointerEnter(event);
              }}
              onPointerLeave={watchAllIntent.onPointerLeave}
              onPointerDown={watchAllIntent.onPointerDown}
              onFocus={() => {
                watchAllPage.preload();
                watchAllIntent.onFocus();
              }}
              onBlur={watchAllIntent.onBlur}
              // Every tile's join starts with the click, as a stream card's does (decision 0057).
              onClick={(event) => {
                if (!opensInThisPage(event)) return;
                for (const stageId of EVERY_STREAM) startEarlySession(stageId);
                // Its module still on its way: /home stays until it is there (a transition),
                // rather than the spinner and React's reveal throttle after it (decision 0112).
                if (!watchAllPage.loaded()) {
                  event.preventDefault();
                  startTransition(() => void navigate(paths.watchAll.href()));
                }
              }}
              className={HEADER_LINK}
            >
              <LayoutGrid aria-hidden="true" className="size-4 text-sky-400" />
              {uiText.home.watchAll}
            </Link>
          </div>
        }
      />
      <StreamGrid
        streams={BUILT_IN_STREAMS}
        hrefFor={paths.player.href}
        onOpen={(href) => void navigate(href)}
        onIntent={prefetchParticipantToken}
        onJoinIntent={(stageId) => joinIntent.intend([stageId])}
        onIntentEnd={(stageId) => joinIntent.forgo([stageId])}
        onOpening={startEarlySession}
      />
    </>
  );
}
