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
   * Every aircraft's timeline; with an aircraft and `?t=`, that moment of its recordings (the
   * Recordings page writes that URL itself: features/recordings/lib/moment.ts#momentHref).
   */
  recordings: {
    path: '/recordings/:stageId?',
    href: () => '/recordings',
  },
  /** The operator's page: every aircraft's on-air state and the last events, live. */
  operations: {
    path: '/operations',
    href: () => '/operations',
  },
  player: {
    path: '/player/:streamId',
    href: (streamId: string) => `/player/${encodeURIComponent(streamId)}`,
  },
} as const;
