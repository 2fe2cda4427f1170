/**
 * How the stage process and the camera process stop: on SIGINT or SIGTERM, or when their parent
 * (scripts/start.mjs) is gone (its IPC channel closes), they close once and exit, 0 when the close
 * ended well and 1 when it failed; a close that has not ended after `graceMs` exits 0 anyway.
 */
import type { StageLogger } from './stage-log';

/** What of `process` the shutdown uses (a test stands in for it). */
export interface ShutdownProcess {
  on(event: 'SIGINT' | 'SIGTERM' | 'disconnect', listener: () => void): unknown;
  exit(code: number): void;
}

export interface ShutdownOptions {
  /** Ends what the process runs: its sessions, its sockets, its server. */
  close: () => Promise<void>;
  log: StageLogger;
  /** How long a close may take before the process exits anyway. */
  graceMs?: number;
  process?: ShutdownProcess;
}

export const SHUTDOWN_GRACE_MS = 3_000;

export function exitOnShutdown(options: ShutdownOptions): void {
  const target = options.process ?? process;
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    options.log.info(`${why}: stopping`);
    const forced = setTimeout(() => target.exit(0), options.graceMs ?? SHUTDOWN_GRACE_MS);
    forced.unref();
    options.close().then(
      () => target.exit(0),
      () => target.exit(1),
    );
  };
  target.on('SIGINT', () => stop('SIGINT'));
  target.on('SIGTERM', () => stop('SIGTERM'));
  // The orchestrator is the parent: if it is gone, so is the reason to run.
  target.on('disconnect', () => stop('parent gone'));
}
