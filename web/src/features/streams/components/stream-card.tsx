import { Video } from 'lucide-react';
import { lazy, Suspense, type KeyboardEvent, type MouseEvent } from 'react';
import { Link } from 'react-router';
import { fillText, uiText } from '@/config/ui-text';
import { opensInThisPage } from '@/lib/opens-in-this-page';
import { useOpenIntent } from '@/lib/use-open-intent';
import type { Stream } from '../data/streams';
import { StreamThumbnail } from './stream-thumbnail';

const LiveThumbnail = lazy(() =>
  import('./live-thumbnail').then((module) => ({ default: module.LiveThumbnail })),
);

interface StreamCardProps {
  stream: Stream;
  href: string;
  onOpen: (href: string) => void;
  /** The viewer may open the stream: a press, the focus it gives, a touch resting on the card. */
  onIntent?: (streamId: string) => void;
  /** The viewer is about to open the stream: a mouse resting on the card, a keyboard's focus. */
  onJoinIntent?: (streamId: string) => void;
  /** The intent went: the pointer left the card, or its focus moved away. */
  onIntentEnd?: (streamId: string) => void;
  /**
   * The stream opens in this page now (a plain click, Enter or Space) or on the release of a
   * mouse's plain press: its join may start.
   */
  onOpening?: (streamId: string) => void;
}

export function StreamCard({
  stream,
  href,
  onOpen,
  onIntent,
  onJoinIntent,
  onIntentEnd,
  onOpening,
}: StreamCardProps) {
  const intent = useOpenIntent({
    onPrefetch: () => onIntent?.(stream.id),
    onJoin: () => onJoinIntent?.(stream.id),
    onEnd: () => onIntentEnd?.(stream.id),
  });

  // A link opens on Enter by itself; Space is what a button-like card is also expected to take.
  function handleKeyDown(event: KeyboardEvent<HTMLAnchorElement>) {
    if (event.key === ' ') {
      event.preventDefault();
      onOpening?.(stream.id);
      onOpen(href);
    }
  }

  // What the router opens in this page (a new tab or window opens its own player).
  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    if (opensInThisPage(event)) onOpening?.(stream.id);
  }

  return (
    <Link
      to={href}
      onKeyDown={handleKeyDown}
      onClick={handleClick}
      onPointerEnter={intent.onPointerEnter}
      onPointerLeave={intent.onPointerLeave}
      onPointerDown={(event) => {
        intent.onPointerDown();
        // A mouse's press opens the stream on its release, 50–150 ms later for a person: the join
        // starts now (decision 0057). Not a touch: a press there may be the start of a scroll.
        if (event.pointerType === 'mouse' && opensInThisPage(event)) onOpening?.(stream.id);
      }}
      onFocus={intent.onFocus}
      onBlur={intent.onBlur}
      aria-label={fillText(stream.isLive ? uiText.home.liveCardLabel : uiText.home.cardLabel, {
        name: stream.name,
      })}
      // What is inside is the link's own face: its picture is replaced as it arrives, and a press
      // whose element is replaced before the release gets no click from the browser, so the
      // stream would not open though its join started at the press (decision 0057). Only the link
      // itself is under the pointer.
      className="group block overflow-hidden *:pointer-events-none rounded-xl border border-slate-800 bg-slate-900 shadow-lg shadow-black/20 transition hover:-translate-y-0.5 hover:border-sky-500/60 hover:shadow-sky-950/40 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:ring-offset-2 focus-visible:ring-offset-slate-950 focus-visible:outline-none"
    >
      <div className="relative">
        <Suspense
          fallback={<StreamThumbnail name={stream.name} thumbnailUrl={stream.thumbnailUrl} />}
        >
          <LiveThumbnail
            streamId={stream.id}
            name={stream.name}
            thumbnailUrl={stream.thumbnailUrl}
          />
        </Suspense>
        {stream.isLive && (
          <span className="absolute top-3 left-3 inline-flex items-center gap-1.5 rounded-full bg-red-600 px-2.5 py-0.5 text-xs font-semibold tracking-wide text-white uppercase">
            <span aria-hidden="true" className="size-1.5 rounded-full bg-white" />
            {uiText.home.liveBadge}
          </span>
        )}
      </div>
      <div className="flex items-center justify-between gap-3 px-4 py-3.5">
        <div>
          <h2 className="font-mono text-lg font-semibold tracking-wider text-white">
            {stream.name}
          </h2>
          <p className="text-sm text-slate-400">{uiText.home.cardHint}</p>
        </div>
        <Video
          aria-hidden="true"
          className="size-5 text-slate-500 transition group-hover:text-sky-400"
        />
      </div>
    </Link>
  );
}
