import { describe, expect, it } from 'vitest';
import { CLIENT_ID_KEY, getClientId } from './client-id';

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
