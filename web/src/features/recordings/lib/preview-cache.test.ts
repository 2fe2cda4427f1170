import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PreviewCache } from './preview-cache';

let made: string[];
let revoked: string[];

beforeEach(() => {
  made = [];
  revoked = [];
  // jsdom has no blob URLs: each made one is named after the blob's text.
  vi.spyOn(URL, 'createObjectURL').mockImplementation(() => {
    const url = `blob:${made.length}`;
    made.push(url);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation((url) => void revoked.push(url));
});
afterEach(() => vi.restoreAllMocks());

describe('the preview cache', () => {
  it('fetches each picture once while it is kept, the least recent going first', async () => {
    const load = vi.fn(() => Promise.resolve(new Blob(['jpeg'])));
    const cache = new PreviewCache(load, 2);
    const a = await cache.get('a');
    await cache.get('b');
    expect(await cache.get('a')).toBe(a); // a is now the most recent
    await cache.get('c'); // b goes
    expect(load).toHaveBeenCalledTimes(3);
    await vi.waitFor(() => expect(revoked).toEqual(['blob:1']));
    await cache.get('b');
    expect(load).toHaveBeenCalledTimes(4);
  });

  it('asks again for a picture that failed, and revokes every URL when disposed', async () => {
    const load = vi
      .fn<(key: string) => Promise<Blob>>()
      .mockRejectedValueOnce(new Error('503'))
      .mockResolvedValue(new Blob(['jpeg']));
    const cache = new PreviewCache(load);
    await expect(cache.get('a')).rejects.toThrow('503');
    expect(await cache.get('a')).toBe('blob:0');
    cache.dispose();
    await vi.waitFor(() => expect(revoked).toEqual(['blob:0']));
  });
});
