/** Debian's PostgreSQL binaries (PATH first, then /usr/lib/postgresql/<newest>/bin). */
export function findPostgresBin(): string | undefined;

export interface ThrowawayPostgresOptions {
  /** A loopback port to listen on. */
  port: number;
  /** The database created in it (`tailcam` by default). */
  database?: string;
  /** Where initdb, pg_ctl and createdb are (found by default). */
  bin?: string;
}

export class ThrowawayPostgres {
  private constructor();
  readonly url: string;
  readonly port: number;
  /** A new, started cluster with the database, or the reason there cannot be one. */
  static create(options: ThrowawayPostgresOptions): ThrowawayPostgres | { unavailable: string };
  /** Starts the server; returns why it could not, if it could not. */
  start(): string | undefined;
  /** Stops the server as an administrator would (fast: open connections are terminated). */
  stop(): void;
  /** Stops the server at once and deletes its files. */
  destroy(): void;
}
