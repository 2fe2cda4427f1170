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
  recordings: {
    path: '/recordings',
    href: () => '/recordings',
  },
  player: {
    path: '/player/:streamId',
    href: (streamId: string) => `/player/${encodeURIComponent(streamId)}`,
  },
} as const;
