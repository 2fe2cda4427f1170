import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_ID_KEY, getClientId, randomUuid } from './client-id';

describe('client id', () => {
  it('is a random UUID made once per browser session, kept under a key ending in viewer_client_id', () => {
    expect(CLIENT_ID_KEY.endsWith('viewer_client_id')).toBe(true);
    const first = getClientId();
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(getClientId()).toBe(first);
    expect(sessionStorage.getItem(CLIENT_ID_KEY)).toBe(first);
  });

  it('differs between browser sessions', () => {
    const first = getClientId();
    sessionStorage.clear();
    expect(getClientId()).not.toBe(first);
  });
});

describe('client id outside a secure context (plain http from another machine)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('is still a random version 4 UUID when crypto.randomUUID is missing', () => {
    const getRandomValues = crypto.getRandomValues.bind(crypto);
    // What a page at http://192.168.1.20:8080 has: getRandomValues, no randomUUID.
    vi.stubGlobal('crypto', { getRandomValues });
    const first = getClientId();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(getClientId()).toBe(first);
    sessionStorage.clear();
    expect(getClientId()).not.toBe(first);
  });

  it('sets the version and variant bits whatever the random bytes are', () => {
    const source = {
      getRandomValues: <T extends ArrayBufferView | null>(array: T): T => {
        if (array instanceof Uint8Array) array.fill(0xff);
        return array;
      },
    } as unknown as Crypto;
    expect(randomUuid(source)).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
  });
});
