import { AlertTriangle, RefreshCw } from 'lucide-react';
import { uiText } from '@/config/ui-text';

/** A page that could not be shown (its chunk did not load): say so, and offer a reload. */
export function PageLoadError() {
  return (
    <div
      role="alert"
      className="flex min-h-64 flex-col items-center justify-center gap-3 text-center"
    >
      <AlertTriangle aria-hidden="true" className="size-10 text-red-400" />
      <p className="text-lg font-semibold text-white">{uiText.pages.loadFailed}</p>
      <button
        type="button"
        onClick={() => window.location.reload()}
        className="mt-2 inline-flex items-center gap-2 rounded-lg bg-sky-500 px-4 py-2 font-semibold text-slate-950 transition hover:bg-sky-400 focus-visible:ring-2 focus-visible:ring-sky-300 focus-visible:ring-offset-2 focus-visible:ring-offset-slate-900 focus-visible:outline-none"
      >
        <RefreshCw aria-hidden="true" className="size-4" />
        {uiText.pages.reload}
      </button>
    </div>
  );
}
