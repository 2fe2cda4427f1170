import { Plane } from 'lucide-react';
import { fillText, uiText } from '@/config/ui-text';

interface StreamThumbnailProps {
  name: string;
  thumbnailUrl?: string;
}

/**
 * The stream's thumbnail (its newest picture, shown whole in the card's 16:9 box), or a drawn
 * placeholder when the stream has none.
 */
export function StreamThumbnail({ name, thumbnailUrl }: StreamThumbnailProps) {
  if (thumbnailUrl) {
    return (
      <img
        src={thumbnailUrl}
        alt={fillText(uiText.home.thumbnail, { name })}
        className="aspect-video w-full bg-black object-contain"
      />
    );
  }
  return (
    <div
      role="img"
      aria-label={fillText(uiText.home.placeholderImage, { name })}
      className="relative flex aspect-video w-full items-center justify-center overflow-hidden bg-gradient-to-b from-sky-800 via-sky-900 to-slate-900"
    >
      <div className="absolute inset-x-0 bottom-0 h-1/3 bg-gradient-to-t from-slate-950/80 to-transparent" />
      <div className="absolute inset-x-0 top-[62%] h-px bg-sky-300/30" />
      <Plane aria-hidden="true" className="size-14 -rotate-12 text-sky-100/80 drop-shadow-lg" />
    </div>
  );
}
