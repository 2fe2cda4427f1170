import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: string;
  subtitle: string;
  /** What sits at the header's end (a link), beside the title on wide screens, below on narrow. */
  action?: ReactNode;
}

/** A page's title (its one `<h1>`) and subtitle. */
export function PageHeader({ title, subtitle, action }: PageHeaderProps) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4 sm:mb-8">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-white sm:text-3xl">{title}</h1>
        <p className="mt-1 text-slate-400">{subtitle}</p>
      </div>
      {action}
    </div>
  );
}
