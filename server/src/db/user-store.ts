/**
 * Accounts. One store over SQL; the driver underneath is PGlite (embedded default) or PostgreSQL.
 * Usernames are kept as typed, and unique and found by their canonical form
 * (accounts/username.ts), computed here and compared as a plain column in SQL.
 */
import { randomUUID } from 'node:crypto';
import { canonicalUsername } from '../accounts/username';
import type { SqlClient } from './sql-client';

export interface User {
  id: string;
  username: string;
  createdAt: Date;
  disabledAt: Date | null;
  /**
   * Goes up with every password change, disable and removal; a login token is good only while
   * it carries the current one.
   */
  tokenGeneration: number;
}

/** A user's token generation: what a write that ends their login tokens leaves it at. */
export interface UserTokenGeneration {
  userId: string;
  tokenGeneration: number;
}

export interface UserWithHash extends User {
  passwordHash: string;
}

export class DuplicateUsernameError extends Error {
  constructor(readonly username: string) {
    super(`A user named "${username}" already exists`);
    this.name = 'DuplicateUsernameError';
  }
}

export interface UserStore {
  /** Throws for a name outside the username grammar. */
  createUser(username: string, passwordHash: string): Promise<User>;
  /** By canonical form; a name outside the grammar names nobody. */
  findByUsername(username: string): Promise<UserWithHash | undefined>;
  findById(id: string): Promise<User | undefined>;
  listUsers(): Promise<User[]>;
  countUsers(): Promise<number>;
  /** Every user's token generation, by user id (the local stage's table, decision 0058). */
  listTokenGenerations(): Promise<Record<string, number>>;
  /**
   * The writes below end the user's login tokens (a new token generation) and return the user's
   * id and new generation, or undefined when no such user exists.
   */
  setPasswordHash(username: string, passwordHash: string): Promise<UserTokenGeneration | undefined>;
  /** Disabling twice keeps the first time (and still raises the generation). */
  disableUser(username: string): Promise<UserTokenGeneration | undefined>;
  /** The generation returned is one above the removed row's: no token of the user is current. */
  removeUser(username: string): Promise<UserTokenGeneration | undefined>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface UserRow {
  id: string;
  username: string;
  password_hash: string;
  created_at: Date | string;
  disabled_at: Date | string | null;
  token_generation: number;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const USER_COLUMNS = 'id, username, password_hash, created_at, disabled_at, token_generation';

const toDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    createdAt: toDate(row.created_at),
    disabledAt: row.disabled_at === null ? null : toDate(row.disabled_at),
    tokenGeneration: Number(row.token_generation),
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505';
}

/** The first row's id and generation, if any: what a write by name returns. */
function generationOf({
  rows,
}: {
  rows: { id: string; token_generation: number }[];
}): UserTokenGeneration | undefined {
  const row = rows[0];
  return row === undefined
    ? undefined
    : { userId: row.id, tokenGeneration: Number(row.token_generation) };
}

type GenerationRow = { id: string; token_generation: number };

export function createUserStore(client: SqlClient): UserStore {
  /** A write (or read) by name: nothing to do for a name outside the grammar. */
  async function byName<T>(
    username: string,
    query: (key: string) => Promise<T>,
  ): Promise<T | undefined> {
    const key = canonicalUsername(username);
    return key === undefined ? undefined : query(key);
  }

  return {
    async createUser(username, passwordHash) {
      const key = canonicalUsername(username);
      if (key === undefined) throw new Error(`"${username}" is not a valid username`);
      try {
        const { rows } = await client.query<UserRow>(
          `INSERT INTO users (id, username, username_key, password_hash) VALUES ($1, $2, $3, $4) RETURNING ${USER_COLUMNS}`,
          [randomUUID(), username, key, passwordHash],
        );
        return toUser(rows[0]!);
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateUsernameError(username);
        throw error;
      }
    },
    findByUsername: (username) =>
      byName(username, async (key) => {
        const { rows } = await client.query<UserRow>(
          `SELECT ${USER_COLUMNS} FROM users WHERE username_key = $1`,
          [key],
        );
        const row = rows[0];
        return row === undefined ? undefined : { ...toUser(row), passwordHash: row.password_hash };
      }),
    async findById(id) {
      // A malformed id would make PostgreSQL raise an error; it simply names no user.
      if (!UUID_PATTERN.test(id)) return undefined;
      const { rows } = await client.query<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`,
        [id],
      );
      return rows[0] === undefined ? undefined : toUser(rows[0]);
    },
    async listUsers() {
      const { rows } = await client.query<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users ORDER BY username_key`,
      );
      return rows.map(toUser);
    },
    async listTokenGenerations() {
      const { rows } = await client.query<GenerationRow>('SELECT id, token_generation FROM users');
      return Object.fromEntries(rows.map((row) => [row.id, Number(row.token_generation)]));
    },
    async countUsers() {
      const { rows } = await client.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM users',
      );
      return rows[0]?.count ?? 0;
    },
    setPasswordHash: (username, passwordHash) =>
      byName(username, async (key) =>
        generationOf(
          await client.query<GenerationRow>(
            'UPDATE users SET password_hash = $2, token_generation = token_generation + 1 WHERE username_key = $1 RETURNING id, token_generation',
            [key, passwordHash],
          ),
        ),
      ),
    disableUser: (username) =>
      byName(username, async (key) =>
        generationOf(
          await client.query<GenerationRow>(
            'UPDATE users SET disabled_at = coalesce(disabled_at, now()), token_generation = token_generation + 1 WHERE username_key = $1 RETURNING id, token_generation',
            [key],
          ),
        ),
      ),
    removeUser: (username) =>
      byName(username, async (key) =>
        generationOf(
          await client.query<GenerationRow>(
            'DELETE FROM users WHERE username_key = $1 RETURNING id, token_generation + 1 AS token_generation',
            [key],
          ),
        ),
      ),
    async ping() {
      await client.query('SELECT 1');
    },
    close: () => client.close(),
  };
}
