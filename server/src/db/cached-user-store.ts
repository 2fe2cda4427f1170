/**
 * Remembers user rows by id for the per-request check of `POST /api/token`. Only for the
 * embedded PGlite, where this process is the only writer (the data-directory lock, and the
 * users CLI going through the admin socket), so clearing the cache on every write through this
 * store keeps it exact: disabling a user, changing their password or removing them takes effect on
 * the next request.
 */
import type { User, UserStore } from './user-store';

export function withUserCache(store: UserStore, maxEntries = 10_000): UserStore {
  const byId = new Map<string, User | undefined>();
  const cleared =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        byId.clear();
      }
    };
  return {
    ...store,
    async findById(id) {
      if (byId.has(id)) return byId.get(id);
      const user = await store.findById(id);
      if (byId.size >= maxEntries) byId.delete(byId.keys().next().value!);
      byId.set(id, user);
      return user;
    },
    createUser: cleared(store.createUser),
    setPasswordHash: cleared(store.setPasswordHash),
    disableUser: cleared(store.disableUser),
    removeUser: cleared(store.removeUser),
  };
}
