import { LoaderCircle } from 'lucide-react';
import { uiText } from '@/config/ui-text';

/** Where a page that loads when first opened will be, while it loads: the player's spinner. */
export function PageLoading() {
  return (
    <div role="status" className="flex min-h-64 flex-col items-center justify-center gap-3">
      <LoaderCircle aria-hidden="true" className="size-10 animate-spin text-sky-400" />
      <p className="text-sm text-slate-400">{uiText.pages.loading}</p>
    </div>
  );
}
