import { describe, expect, it } from 'vitest';
import { build } from '../test/helpers';
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

async function signedIn(thumbnails?: ThumbnailSource) {
  const test = await build({ deps: thumbnails ? { thumbnails } : {} });
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
    const cases = [
      [undefined, 'Missing bearer token'],
      ['not a token!', 'Malformed Authorization header'],
      [`${token}x`, 'Invalid or expired token'],
    ] as const;
    for (const [bearer, error] of cases) {
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
