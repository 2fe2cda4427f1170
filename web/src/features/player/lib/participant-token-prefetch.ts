/**
 * Participant tokens fetched ahead of a join, while the viewer is about to open a stream (the
 * pointer rests on its card, the card has focus, or is being pressed): the join then starts with
 * its token in hand instead of a round trip to the API. Decision 0040.
 *
 * - One fetch per stage at a time: a prefetch is ignored while another for that stage is in
 *   flight or its token is still fresh (docs/product.md#player-states: "a token fetch is
 *   ignored while another one is in flight").
 * - A token is handed out once (a participant token joins once) and only while fresh: for
 *   `ttlMs` (15 s, against a lifetime of an hour by default), and only to the same signed-in
 *   viewer (same stored login token) that fetched it.
 * - A prefetch that fails is forgotten, silently: the player then fetches its token itself, as
 *   with no prefetch, so the error the viewer sees is the player's own
 *   (docs/product.md#error-catalogue).
 */
export const PREFETCH_TTL_MS = 15_000;

export type FetchParticipantToken = (stageId: string, signal: AbortSignal) => Promise<string>;

interface Prefetch {
  authToken: string | null;
  startedAt: number;
  controller: AbortController;
  /** Resolves to the token, or to undefined when the fetch failed. */
  token: Promise<string | undefined>;
}

export class ParticipantTokenPrefetcher {
  private readonly prefetches = new Map<string, Prefetch>();

  constructor(
    private readonly fetchToken: FetchParticipantToken,
    private readonly getAuthToken: () => string | null,
    private readonly now: () => number = () => Date.now(),
    private readonly ttlMs = PREFETCH_TTL_MS,
  ) {}

  /** Starts fetching a token for `stageId`, unless one is in flight or fresh. */
  prefetch(stageId: string): void {
    const authToken = this.getAuthToken();
    if (!authToken) return; // the player will say what is wrong
    const existing = this.usable(stageId, authToken);
    if (existing) return;
    const controller = new AbortController();
    const prefetch: Prefetch = {
      authToken,
      startedAt: this.now(),
      controller,
      token: this.fetchToken(stageId, controller.signal).catch(() => {
        if (this.prefetches.get(stageId) === prefetch) this.prefetches.delete(stageId);
        return undefined;
      }),
    };
    this.prefetches.set(stageId, prefetch);
  }

  /**
   * The prefetched token for `stageId` (in flight or fresh), handed out once; undefined when
   * there is none, or when it failed.
   */
  take(stageId: string): Promise<string | undefined> | undefined {
    const prefetch = this.usable(stageId, this.getAuthToken());
    this.prefetches.delete(stageId);
    return prefetch?.token;
  }

  /** Cancels what is in flight and forgets every token. */
  clear(): void {
    for (const prefetch of this.prefetches.values()) prefetch.controller.abort();
    this.prefetches.clear();
  }

  private usable(stageId: string, authToken: string | null): Prefetch | undefined {
    const prefetch = this.prefetches.get(stageId);
    if (!prefetch) return undefined;
    if (prefetch.authToken === authToken && this.now() - prefetch.startedAt < this.ttlMs) {
      return prefetch;
    }
    prefetch.controller.abort();
    this.prefetches.delete(stageId);
    return undefined;
  }
}

/**
 * The token fetch of a player's first join: the prefetched token when there is one, else (or
 * when it failed) a fetch of its own. Later fetches (reconnects, retries) always fetch anew.
 */
export function firstFetchUsing(
  prefetched: Promise<string | undefined> | undefined,
  fetchToken: FetchParticipantToken,
): FetchParticipantToken {
  let first = true;
  return async (stageId, signal) => {
    const candidate = first ? prefetched : undefined;
    first = false;
    if (candidate) {
      const token = await raceAbort(candidate, signal);
      if (token !== undefined) return token;
    }
    return fetchToken(stageId, signal);
  };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
