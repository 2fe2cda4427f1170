import { describe, expect, it } from 'vitest';
import {
  firstFetchUsing,
  ParticipantTokenPrefetcher,
  PREFETCH_TTL_MS,
} from './participant-token-prefetch';

interface PendingFetch {
  stageId: string;
  resolve: (token: string) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
}

function setup() {
  const fetches: PendingFetch[] = [];
  let now = 1_000;
  let authToken: string | null = 'login-token';
  const prefetcher = new ParticipantTokenPrefetcher(
    (stageId, signal) =>
      new Promise<string>((resolve, reject) => fetches.push({ stageId, resolve, reject, signal })),
    () => authToken,
    () => now,
  );
  return {
    prefetcher,
    fetches,
    advance: (ms: number) => (now += ms),
    signInAs: (token: string | null) => (authToken = token),
  };
}

describe('ParticipantTokenPrefetcher', () => {
  it('ignores a prefetch for a stage while one is in flight or fresh', async () => {
    const { prefetcher, fetches } = setup();
    prefetcher.prefetch('N743AS');
    prefetcher.prefetch('N743AS');
    expect(fetches).toHaveLength(1);
    fetches[0]?.resolve('participant-1');
    await Promise.resolve();
    prefetcher.prefetch('N743AS');
    expect(fetches).toHaveLength(1);
    prefetcher.prefetch('N953AS');
    expect(fetches.map((fetch) => fetch.stageId)).toEqual(['N743AS', 'N953AS']);
  });

  it('hands a prefetched token out once, in flight or arrived', async () => {
    const { prefetcher, fetches } = setup();
    prefetcher.prefetch('N743AS');
    const taken = prefetcher.take('N743AS');
    expect(prefetcher.take('N743AS')).toBeUndefined();
    fetches[0]?.resolve('participant-1');
    await expect(taken).resolves.toBe('participant-1');
  });

  it('does not hand out a token older than its freshness window, and cancels it', () => {
    const { prefetcher, fetches, advance } = setup();
    prefetcher.prefetch('N743AS');
    advance(PREFETCH_TTL_MS);
    expect(prefetcher.take('N743AS')).toBeUndefined();
    expect(fetches[0]?.signal.aborted).toBe(true);
  });

  it('does not hand a token to another signed-in viewer', () => {
    const { prefetcher, signInAs } = setup();
    prefetcher.prefetch('N743AS');
    signInAs('another-login-token');
    expect(prefetcher.take('N743AS')).toBeUndefined();
  });

  it('does nothing without a stored login token', () => {
    const { prefetcher, fetches, signInAs } = setup();
    signInAs(null);
    prefetcher.prefetch('N743AS');
    expect(fetches).toHaveLength(0);
  });

  it('forgets a prefetch that failed, so that the next intent fetches again', async () => {
    const { prefetcher, fetches } = setup();
    prefetcher.prefetch('N743AS');
    fetches[0]?.reject(new Error('Failed to fetch participant token'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(prefetcher.take('N743AS')).toBeUndefined();
    prefetcher.prefetch('N743AS');
    expect(fetches).toHaveLength(2);
  });

  it('cancels everything in flight on clear', () => {
    const { prefetcher, fetches } = setup();
    prefetcher.prefetch('N743AS');
    prefetcher.clear();
    expect(fetches[0]?.signal.aborted).toBe(true);
    expect(prefetcher.take('N743AS')).toBeUndefined();
  });
});

describe('firstFetchUsing', () => {
  const own = (stageId: string) => Promise.resolve(`own-${stageId}`);

  it('uses the prefetched token for the first join only', async () => {
    const fetchToken = firstFetchUsing(Promise.resolve('prefetched'), own);
    const signal = new AbortController().signal;
    await expect(fetchToken('N743AS', signal)).resolves.toBe('prefetched');
    await expect(fetchToken('N743AS', signal)).resolves.toBe('own-N743AS');
  });

  it('fetches its own token when the prefetch failed or there was none', async () => {
    const signal = new AbortController().signal;
    await expect(firstFetchUsing(Promise.resolve(undefined), own)('N743AS', signal)).resolves.toBe(
      'own-N743AS',
    );
    await expect(firstFetchUsing(undefined, own)('N743AS', signal)).resolves.toBe('own-N743AS');
  });

  it('stops waiting for the prefetched token when the player is left', async () => {
    const controller = new AbortController();
    const pending = firstFetchUsing(new Promise<string | undefined>(() => {}), own)(
      'N743AS',
      controller.signal,
    );
    controller.abort(new DOMException('left', 'AbortError'));
    await expect(pending).rejects.toThrow('left');
  });
});
