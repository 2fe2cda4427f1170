import { Radio } from 'lucide-react';
import { uiText } from '@/config/ui-text';
import type { Stream } from '../data/streams';
import { StreamCard } from './stream-card';

interface StreamGridProps {
  streams: readonly Stream[];
  hrefFor: (streamId: string) => string;
  onOpen: (href: string) => void;
  onIntent?: (streamId: string) => void;
  onJoinIntent?: (streamId: string) => void;
  onIntentEnd?: (streamId: string) => void;
  onOpening?: (streamId: string) => void;
}

export function StreamGrid({
  streams,
  hrefFor,
  onOpen,
  onIntent,
  onJoinIntent,
  onIntentEnd,
  onOpening,
}: StreamGridProps) {
  if (streams.length === 0) {
    return (
      <div className="flex flex-col items-center rounded-xl border border-dashed border-slate-700 px-6 py-16 text-center">
        <Radio aria-hidden="true" className="mb-4 size-10 text-slate-500" />
        <p className="text-lg font-semibold text-slate-200">{uiText.home.emptyTitle}</p>
        <p className="mt-1 text-slate-400">{uiText.home.emptyHint}</p>
      </div>
    );
  }
  return (
    <ul
      className="grid grid-cols-1 gap-6 md:grid-cols-2 lg:grid-cols-3"
      aria-label={uiText.home.streamList}
    >
      {streams.map((stream) => (
        <li key={stream.id}>
          <StreamCard
            stream={stream}
            href={hrefFor(stream.id)}
            onOpen={onOpen}
            onIntent={onIntent}
            onJoinIntent={onJoinIntent}
            onIntentEnd={onIntentEnd}
            onOpening={onOpening}
          />
        </li>
      ))}
    </ul>
  );
}
