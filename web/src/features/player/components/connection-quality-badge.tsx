import { fillText, uiText } from '@/config/ui-text';
import type { ConnectionQuality } from '../lib/playback-stats';

const LOOK: Record<ConnectionQuality, { text: string; dot: string; bars: number }> = {
  good: { text: uiText.quality.good, dot: 'bg-emerald-400', bars: 3 },
  fair: { text: uiText.quality.fair, dot: 'bg-amber-400', bars: 2 },
  poor: { text: uiText.quality.poor, dot: 'bg-red-500', bars: 1 },
};

/**
 * 'Good', 'Fair' or 'Poor' (docs/product.md#connection-quality), named for screen readers. While
 * the picture is the recording (`behind`), it still measures the live connection, and says so.
 */
export function ConnectionQualityBadge({
  quality,
  behind = false,
}: {
  quality: ConnectionQuality;
  behind?: boolean;
}) {
  const look = LOOK[quality];
  return (
    <span
      role="img"
      aria-label={fillText(behind ? uiText.quality.labelBehind : uiText.quality.label, {
        quality: look.text,
      })}
      data-quality={quality}
      className="inline-flex h-8 items-center gap-1.5 rounded-lg bg-slate-950/75 px-2.5 text-xs font-medium text-slate-100 ring-1 ring-slate-700/80 backdrop-blur-sm"
    >
      <span aria-hidden="true" className="flex h-3 items-end gap-0.5">
        {[1, 2, 3].map((bar) => (
          <span
            key={bar}
            className={`w-1 rounded-sm ${bar <= look.bars ? look.dot : 'bg-slate-600'}`}
            style={{ height: `${bar * 4}px` }}
          />
        ))}
      </span>
      <span aria-hidden="true">
        {behind ? fillText(uiText.quality.shortBehind, { quality: look.text }) : look.text}
      </span>
    </span>
  );
}
