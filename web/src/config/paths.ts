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
  /**
   * Every aircraft's timeline; with an aircraft and `t` (a moment as the Recordings page writes
   * it, `2026-11-29T06:25:30Z`: nothing to escape), that moment of its recordings.
   */
  recordings: {
    path: '/recordings/:stageId?',
    href: (stageId?: string, t?: string) =>
      stageId === undefined
        ? '/recordings'
        : `/recordings/${encodeURIComponent(stageId)}${t === undefined ? '' : `?t=${t}`}`,
  },
  player: {
    path: '/player/:streamId',
    href: (streamId: string) => `/player/${encodeURIComponent(streamId)}`,
  },
} as const;
