/**
 * The one route table: the router, links, redirects and tests all read it, so they cannot drift.
 */
export const paths = {
  signIn: {
    path: '/',
    href: () => '/',
  },
  home: {
    path: '/home',
    href: () => '/home',
  },
  watchAll: {
    path: '/watch-all',
    href: () => '/watch-all',
  },
  /** Every aircraft's timeline; with an aircraft and `?t=`, that moment of its recordings. */
  recordings: {
    path: '/recordings/:stageId?',
    href: (stageId?: string, t?: string) =>
      stageId === undefined
        ? '/recordings'
        : `/recordings/${encodeURIComponent(stageId)}${t === undefined ? '' : `?t=${encodeURIComponent(t).replaceAll('%3A', ':')}`}`,
  },
  player: {
    path: '/player/:streamId',
    href: (streamId: string) => `/player/${encodeURIComponent(streamId)}`,
  },
} as const;
