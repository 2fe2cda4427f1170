import { describe, expect, it } from 'vitest';
import { createMemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit';
import { build, refusedBearers } from '../test/helpers';
import type { ThumbnailSource } from '../thumbnails/thumbnail-source';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

/** A source with a picture of N743AS only, counting what it was asked. */
function source(): ThumbnailSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    latest: async (stageId) => {
      asked.push(stageId);
      return stageId === 'N743AS' ? { body: JPEG, contentType: 'image/jpeg' } : undefined;
    },
  };
}

async function signedIn(thumbnails?: ThumbnailSource, rateLimitStore?: RateLimitStore) {
  const test = await build({
    deps: { ...(thumbnails ? { thumbnails } : {}), ...(rateLimitStore ? { rateLimitStore } : {}) },
  });
  await test.addUser('alice', 'correct horse');
  return { ...test, token: await test.login('alice', 'correct horse') };
}

const get = (url: string, token?: string) => ({
  method: 'GET' as const,
  url,
  headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
});

describe('GET /api/thumbnails/{streamId}', () => {
  it("answers a signed-in viewer with the aircraft's picture, never to be cached", async () => {
    const { app, token } = await signedIn(source());
    const response = await app.inject(get('/api/thumbnails/N743AS', token));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.rawPayload).toEqual(JPEG);
  });

  it('answers 204 when the aircraft has no picture now, or its source fails', async () => {
    const { app, token } = await signedIn(source());
    const none = await app.inject(get('/api/thumbnails/N953AS', token));
    expect(none.statusCode).toBe(204);
    expect(none.headers['cache-control']).toBe('private, no-store');
    const failing = await signedIn({
      latest: () => Promise.reject(new Error('connect ENOENT /data/thumbnails.sock')),
    });
    const failed = await failing.app.inject(get('/api/thumbnails/N743AS', failing.token));
    expect(failed.statusCode).toBe(204);
    expect(failed.body).toBe('');
  });

  it('refuses without a valid login token, before asking for any picture', async () => {
    const thumbnails = source();
    const { app, token } = await signedIn(thumbnails);
    for (const [bearer, error] of refusedBearers(token)) {
      const response = await app.inject(get('/api/thumbnails/N743AS', bearer));
      expect(response.statusCode, error).toBe(401);
      expect(response.json(), error).toEqual({ error });
      expect(response.headers['cache-control']).toBe('private, no-store');
    }
    const unknownStream = await app.inject(get('/api/thumbnails/N000XX'));
    expect(unknownStream.statusCode).toBe(401);
    expect(thumbnails.asked).toEqual([]);
  });

  it('answers 404 for a stream that is not in the list', async () => {
    const { app, token } = await signedIn(source());
    const response = await app.inject(get('/api/thumbnails/N000XX', token));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Unknown stream: N000XX' });
  });
});

describe('GET /api/thumbnails/{streamId} under load', () => {
  it("never limits a normal /home (three cards asking every 3 s for a minute, the page's quickest), but does thirty asks at a time beyond it", async () => {
    const { app, token } = await signedIn(source());
    for (let ask = 0; ask < 20; ask += 1) {
      for (const streamId of ['N743AS', 'N953AS', 'N954AS']) {
        const response = await app.inject(get(`/api/thumbnails/${streamId}`, token));
        expect(response.statusCode, `ask ${ask} of ${streamId}`).not.toBe(429);
      }
    }
    const statuses: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const burst = Array.from({ length: 30 }, () =>
        app.inject(get('/api/thumbnails/N743AS', token)),
      );
      for (const response of await Promise.all(burst)) statuses.push(response.statusCode);
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  });

  it('answers 429 with Retry-After past THUMBNAIL_RATE_LIMIT_PER_MINUTE asks of one account, without asking the source; another account is not held', async () => {
    const thumbnails = source();
    const test = await build({ config: { thumbnailRateLimitPerMinute: 5 }, deps: { thumbnails } });
    await test.addUser('alice', 'correct horse');
    await test.addUser('bob', 'battery staple');
    const alice = await test.login('alice', 'correct horse');
    const bob = await test.login('bob', 'battery staple');
    for (let ask = 0; ask < 5; ask += 1) {
      expect((await test.app.inject(get('/api/thumbnails/N743AS', alice))).statusCode).toBe(200);
    }
    const refused = await test.app.inject(get('/api/thumbnails/N743AS', alice));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.json()).toEqual({
      error: `Too many thumbnail requests for this account; try again in ${String(refused.headers['retry-after'])} seconds`,
    });
    expect(refused.headers['cache-control']).toBe('private, no-store');
    expect(thumbnails.asked).toHaveLength(5);
    expect((await test.app.inject(get('/api/thumbnails/N743AS', bob))).statusCode).toBe(200);
  });

  it('asks the source once for concurrent asks of one aircraft, and gives every asker its answer', async () => {
    let answer: (thumbnail: { body: Buffer; contentType: 'image/jpeg' }) => void = () => {};
    const asked: string[] = [];
    const slow: ThumbnailSource = {
      latest: (stageId) => {
        asked.push(stageId);
        return new Promise((resolve) => (answer = resolve));
      },
    };
    // The asks counted against the account: each one past its sign-in check, on its way to the
    // route's handler. Answered before all thirty are there, a late one would ask anew (as it
    // should: that ask came after the answer), and on a busy machine some were that late.
    const store = createMemoryRateLimitStore();
    let counted = 0;
    const counting: RateLimitStore = {
      ...store,
      hit: (...args) => {
        counted += 1;
        return store.hit(...args);
      },
    };
    const { app, token } = await signedIn(slow, counting);
    counted = 0;
    const responses = Array.from({ length: 30 }, () =>
      app.inject(get('/api/thumbnails/N743AS', token)),
    );
    await expect.poll(() => counted, { timeout: 10_000 }).toBe(30);
    // From its count to the handler's ask there is no I/O, only the hooks' promises.
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(['N743AS']);
    answer({ body: JPEG, contentType: 'image/jpeg' });
    for (const response of await Promise.all(responses)) {
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload).toEqual(JPEG);
    }
    expect(asked).toEqual(['N743AS']);
    // Answered: the next ask is a new one.
    const next = app.inject(get('/api/thumbnails/N743AS', token));
    await expect.poll(() => asked.length).toBe(2);
    answer({ body: JPEG, contentType: 'image/jpeg' });
    expect((await next).statusCode).toBe(200);
  });
});
