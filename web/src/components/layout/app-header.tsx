import { Activity, LogOut, Plane } from 'lucide-react';
import { Link } from 'react-router';
import { uiText } from '@/config/ui-text';

interface AppHeaderProps {
  homeHref: string;
  /** The operator's page, and what fetches its chunk ahead (a pointer or focus on the link). */
  operations: { href: string; preload: () => void };
  onLogout: () => void;
}

export function AppHeader({ homeHref, operations, onLogout }: AppHeaderProps) {
  return (
    <header className="sticky top-0 z-10 border-b border-slate-800 bg-slate-950/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between px-4 sm:px-6 lg:px-8">
        <Link
          to={homeHref}
          className="flex items-center gap-2.5 rounded-lg text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
          aria-label={uiText.header.homeLink}
        >
          <span className="flex size-9 items-center justify-center rounded-lg bg-sky-500 text-slate-950">
            <Plane aria-hidden="true" className="size-5" />
          </span>
          <span className="text-lg font-bold tracking-tight">{uiText.header.logo}</span>
        </Link>
        <nav className="flex items-center gap-2">
          <Link
            to={operations.href}
            onPointerEnter={operations.preload}
            onFocus={operations.preload}
            aria-label={uiText.header.operations}
            className="inline-flex items-center gap-2 rounded-lg px-3 py-2 text-sm font-medium text-slate-200 transition hover:bg-slate-800 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
          >
            <Activity aria-hidden="true" className="size-4" />
            <span className="hidden sm:inline">{uiText.header.operations}</span>
          </Link>
          <button
            type="button"
            onClick={onLogout}
            aria-label={uiText.header.logout}
            className="inline-flex items-center gap-2 rounded-lg border border-slate-700 px-3 py-2 text-sm font-medium text-slate-200 transition hover:border-slate-500 hover:bg-slate-800 focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
          >
            <LogOut aria-hidden="true" className="size-4" />
            <span className="hidden sm:inline">{uiText.header.logout}</span>
          </button>
        </nav>
      </div>
    </header>
  );
}
