import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLocalStageProvider } from '../providers/local-provider';
import { build, refusedBearers, stageTokenSecret, testConfig } from '../test/helpers';
import { listenOnLoopback } from '../test/raw-http';
import {
  OPERATIONS_LONG_POLL_MS,
  OPERATIONS_REQUESTS_PER_MINUTE,
  OPERATIONS_UNAVAILABLE,
  OPERATIONS_WAITING_PER_ACCOUNT,
} from './operations-route';
import { OperationsStateStore, type OperationsState } from './operations-state';

afterEach(() => {
  vi.useRealTimers();
});

async function signedIn() {
  const operations = new OperationsStateStore(['N743AS', 'N953AS', 'N954AS']);
  /** The polls that reached the state and wait on it, by their version. */
  const waits: number[] = [];
  const state: OperationsState = {
    snapshot: () => operations.snapshot(),
    changed: (afterVersion, signal) => {
      waits.push(afterVersion);
      return operations.changed(afterVersion, signal);
    },
  };
  const present: number[] = [];
  const stageProvider = createLocalStageProvider({
    secret: stageTokenSecret,
    ttlMinutes: 60,
    publicUrl: undefined,
    stageUrl: 'http://127.0.0.1:1',
  });
  const test = await build({
    deps: {
      operations: state,
      // What wakes the sleeping cameras (decision 0074), counted.
      stageProvider: { ...stageProvider, viewerPresent: () => present.push(Date.now()) },
      thumbnails: { latest: async () => undefined },
    },
  });
  await test.addUser('alice', 'correct horse');
  /** Until `count` polls in all have reached the state. */
  const waiting = (count: number) => vi.waitFor(() => expect(waits).toHaveLength(count));
  return {
    ...test,
    operations,
    present,
    waiting,
    token: await test.login('alice', 'correct horse'),
  };
}

const get = (url: string, token?: string) => ({
  method: 'GET' as const,
  url,
  headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
});

describe('GET /api/operations', () => {
  it('answers a signed-in user every aircraft and the newest events, never to be cached', async () => {
    const { app, token, operations } = await signedIn();
    operations.update('N743AS', {
      onAir: true,
      since: '2026-11-29T15:00:00.000Z',
      bitrate: 1_200_000,
      viewers: 2,
    });
    operations.addEvent({
      id: 'e1',
      time: '2026-11-29T15:00:00.000Z',
      aircraft: 'N743AS',
      name: 'Participant Published',
    });
    const response = await app.inject(get('/api/operations', token));
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('private, no-store');
    const body = response.json();
    expect(body.version).toBe(operations.snapshot().version);
    expect(body.aircraft).toContainEqual({
      aircraft: 'N743AS',
      onAir: true,
      since: '2026-11-29T15:00:00.000Z',
      bitrate: 1_200_000,
      viewers: 2,
    });
    expect(body.aircraft).toContainEqual({
      aircraft: 'N953AS',
      onAir: false,
      since: null,
      bitrate: null,
      viewers: 0,
    });
    expect(body.events).toEqual([
      {
        id: 'e1',
        time: '2026-11-29T15:00:00.000Z',
        aircraft: 'N743AS',
        name: 'Participant Published',
      },
    ]);
  });

  it("does not wake the sleeping cameras, as a viewer's requests do", async () => {
    const { app, token, present } = await signedIn();
    expect((await app.inject(get('/api/operations', token))).statusCode).toBe(200);
    expect(present).toEqual([]);
    expect((await app.inject(get('/api/thumbnails/N743AS', token))).statusCode).toBe(204);
    expect(present).toHaveLength(1);
  });

  it('is not found with Amazon IVS, where nothing here follows the stages: no aircraft all off air', async () => {
    const { app, addUser, login } = await build({ config: testConfig({ stageProvider: 'ivs' }) });
    await addUser('alice', 'correct horse');
    const token = await login('alice', 'correct horse');
    expect((await app.inject(get('/api/operations'))).statusCode).toBe(401);
    const response = await app.inject(get('/api/operations', token));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: OPERATIONS_UNAVAILABLE });
    expect(response.headers['cache-control']).toBe('private, no-store');
  });

  it('refuses without a valid login token, before the query is looked at', async () => {
    const { app, token } = await signedIn();
    for (const [bearer, error] of refusedBearers(token)) {
      const response = await app.inject(get('/api/operations?after=oops', bearer));
      expect(response.statusCode, error).toBe(401);
      expect(response.json(), error).toEqual({ error });
    }
  });

  it('refuses an after that is not a version, or another parameter, with a 400 saying so', async () => {
    const { app, token } = await signedIn();
    for (const query of ['after=', 'after=-1', 'after=1.5', 'after=abc', 'after=1&after=2']) {
      const response = await app.inject(get(`/api/operations?${query}`, token));
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error, query).toMatch(/^Invalid request querystring: after: must be/);
    }
    const other = await app.inject(get('/api/operations?since=1', token));
    expect(other.statusCode).toBe(400);
    expect(other.json().error).toMatch(/^Invalid request querystring: .*since/);
  });

  it('answers a poll at once when the state is past its version, or newer than the state (a restart)', async () => {
    const { app, token, operations } = await signedIn();
    const version = operations.snapshot().version;
    operations.update('N743AS', { viewers: 1 });
    const past = await app.inject(get(`/api/operations?after=${version}`, token));
    expect(past.json().version).toBe(version + 1);
    const ahead = await app.inject(get(`/api/operations?after=${version + 50}`, token));
    expect(ahead.statusCode).toBe(200);
    expect(ahead.json().version).toBe(version + 1);
  });

  it('holds a poll until the state changes, then answers the new state', async () => {
    const { app, token, operations, waiting } = await signedIn();
    const version = operations.snapshot().version;
    let answered = false;
    const poll = app.inject(get(`/api/operations?after=${version}`, token)).then((response) => {
      answered = true;
      return response;
    });
    await waiting(1);
    // Another request answered meanwhile: the poll still waits.
    await app.inject(get('/api/operations', token));
    expect(answered).toBe(false);
    operations.update('N953AS', { onAir: false, since: '2026-11-29T15:10:00.000Z' });
    const response = await poll;
    expect(response.statusCode).toBe(200);
    expect(response.json().version).toBe(version + 1);
    expect(response.json().aircraft).toContainEqual(
      expect.objectContaining({ aircraft: 'N953AS', since: '2026-11-29T15:10:00.000Z' }),
    );
  });

  it(`answers a poll with no change after ${OPERATIONS_LONG_POLL_MS / 1000} s with the same state`, async () => {
    const { app, token, operations, waiting } = await signedIn();
    const version = operations.snapshot().version;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answered = false;
    const poll = app.inject(get(`/api/operations?after=${version}`, token)).then((response) => {
      answered = true;
      return response;
    });
    await waiting(1);
    vi.advanceTimersByTime(OPERATIONS_LONG_POLL_MS - 1_000);
    await app.inject(get('/api/operations', token));
    expect(answered).toBe(false);
    vi.advanceTimersByTime(1_000);
    const response = await poll;
    expect(response.statusCode).toBe(200);
    expect(response.json().version).toBe(version);
  });

  it(`lets one account hold ${OPERATIONS_WAITING_PER_ACCOUNT} polls waiting, and refuses the next with 429`, async () => {
    const { app, token, operations, waiting, addUser, login } = await signedIn();
    const version = operations.snapshot().version;
    const polls = Array.from({ length: OPERATIONS_WAITING_PER_ACCOUNT }, () =>
      app.inject(get(`/api/operations?after=${version}`, token)),
    );
    await waiting(OPERATIONS_WAITING_PER_ACCOUNT);
    const refused = await app.inject(get(`/api/operations?after=${version}`, token));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(OPERATIONS_LONG_POLL_MS / 1000));
    expect(refused.json()).toEqual({
      error: `Too many operations pages are waiting for this account (at most ${OPERATIONS_WAITING_PER_ACCOUNT}); close one and try again`,
    });
    // Another account is not held to alice's.
    await addUser('bob', 'battery staple');
    const bobToken = await login('bob', 'battery staple');
    const bob = app.inject(get(`/api/operations?after=${version}`, bobToken));
    await waiting(OPERATIONS_WAITING_PER_ACCOUNT + 1);
    operations.update('N743AS', { viewers: 3 });
    for (const response of await Promise.all([...polls, bob])) {
      expect(response.statusCode).toBe(200);
    }
    // Answered, the places are free again.
    const again = app.inject(get(`/api/operations?after=${version + 1}`, token));
    await waiting(OPERATIONS_WAITING_PER_ACCOUNT + 2);
    operations.update('N743AS', { viewers: 4 });
    expect((await again).statusCode).toBe(200);
  });

  it('frees the place of a poll whose client went away', async () => {
    const { app, token, operations, waiting } = await signedIn();
    const version = operations.snapshot().version;
    const port = await listenOnLoopback(app);
    const gone = Array.from(
      { length: OPERATIONS_WAITING_PER_ACCOUNT },
      () => new AbortController(),
    );
    const requests = gone.map((abort) =>
      fetch(`http://127.0.0.1:${port}/api/operations?after=${version}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
      }).catch(() => undefined),
    );
    await waiting(OPERATIONS_WAITING_PER_ACCOUNT);
    for (const abort of gone) abort.abort();
    await Promise.all(requests);
    // The places free as each socket's close is seen: a new poll is taken, not refused.
    await vi.waitFor(async () => {
      const poll = app.inject(get(`/api/operations?after=${version}`, token));
      const answered = await Promise.race([
        poll,
        new Promise<undefined>((done) => setTimeout(done, 50)),
      ]);
      expect(answered?.statusCode).not.toBe(429);
    });
  });

  it('answers every waiting poll at once when the server closes', async () => {
    const { app, token, operations, waiting } = await signedIn();
    const version = operations.snapshot().version;
    const poll = app.inject(get(`/api/operations?after=${version}`, token));
    await waiting(1);
    const started = Date.now();
    await app.close();
    const response = await poll;
    expect(response.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it(`counts ${OPERATIONS_REQUESTS_PER_MINUTE} requests a minute per account, then 429 with Retry-After`, async () => {
    const { app, token } = await signedIn();
    for (let count = 0; count < OPERATIONS_REQUESTS_PER_MINUTE; count += 1) {
      const response = await app.inject(get('/api/operations', token));
      expect(response.statusCode).toBe(200);
    }
    const refused = await app.inject(get('/api/operations', token));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.json().error).toMatch(
      /^Too many operations requests for this account; try again in \d+ seconds$/,
    );
  });
});
