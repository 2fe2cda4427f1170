import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';
import { paths } from '@/config/paths';
import { uiText } from '@/config/ui-text';

/**
 * 'Back to Selection' (docs/product.md): the link to `/home` at the head of the player, Watch all
 * and Operations; `short` says 'Back' on a narrow screen.
 */
export function BackToSelection({ short = false }: { short?: boolean }) {
  return (
    <Link
      to={paths.home.href()}
      className="inline-flex items-center gap-2 rounded-lg px-2 py-1.5 text-sm font-medium text-slate-300 transition hover:bg-slate-800 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
    >
      <ArrowLeft aria-hidden="true" className="size-4" />
      {short ? (
        <>
          <span className="hidden sm:inline">{uiText.player.back}</span>
          <span className="sm:hidden">{uiText.player.backShort}</span>
        </>
      ) : (
        uiText.player.back
      )}
    </Link>
  );
}
