import { describe, expect, it, vi } from 'vitest';
import { freshStore } from '../test/helpers';
import { withUserCache } from './cached-user-store';

describe('user cache', () => {
  it('answers repeated lookups from memory and forgets everything on a write', async () => {
    const store = await freshStore();
    const lookup = vi.spyOn(store, 'findById');
    const cached = withUserCache(store);
    const user = await cached.createUser('alice', 'hash');
    expect((await cached.findById(user.id))?.disabledAt).toBeNull();
    await cached.findById(user.id);
    expect(lookup).toHaveBeenCalledTimes(1);
    await cached.disableUser('alice');
    expect((await cached.findById(user.id))?.disabledAt).toBeInstanceOf(Date);
    expect(lookup).toHaveBeenCalledTimes(2);
  });
});
