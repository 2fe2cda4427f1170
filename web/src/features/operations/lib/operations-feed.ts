/**
 * The operator's page's live feed (decision 0099): one long poll at a time on
 * `GET /api/operations?after={version}`, each answer handed on and the next poll sent, no sooner
 * than `MIN_POLL_INTERVAL_MS` after the last one began (a state that changes every instant costs
 * one request a second, not a loop). A failure is reported and the poll tried again after a wait
 * that grows (the API's `Retry-After` for a 429); a 401 ends the feed until `retry()`, a 404 (the
 * API keeps no operations: Amazon IVS) for good. No React:
 * `use-operations.ts` joins it to the page.
 */
import { ApiError } from '@/lib/api-client';
import { OperationsBusy, type OperationsSnapshot } from '../api/operations';

/** The shortest time between the starts of two polls. */
export const MIN_POLL_INTERVAL_MS = 1_000;
/** Waits after the 1st, 2nd, ... failure in a row; the last repeats. */
export const RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

export type FeedStatus =
  | { kind: 'live' }
  /** The last poll failed; the next is tried at `retryAt` (ms, the page's clock). */
  | { kind: 'retrying'; retryAt: number }
  /** Refused for good (not signed in): nothing more is asked until `retry()`. */
  | { kind: 'stopped' }
  /** Not kept by this API (404: with Amazon IVS): nothing more is asked. */
  | { kind: 'unavailable' };

export interface OperationsFeedOptions {
  fetchSnapshot: (after: number | undefined, signal: AbortSignal) => Promise<OperationsSnapshot>;
  onSnapshot: (snapshot: OperationsSnapshot) => void;
  onStatus: (status: FeedStatus) => void;
  now?: () => number;
}

export class OperationsFeed {
  readonly #options: OperationsFeedOptions;
  readonly #now: () => number;
  #abort: AbortController | undefined;
  #version: number | undefined;
  #failures = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: OperationsFeedOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Begins polling (the first request at once). */
  start(): void {
    this.stop();
    this.#abort = new AbortController();
    this.#failures = 0;
    void this.#poll(this.#abort.signal);
  }

  /** Asks again at once: after a failure, or a stop. */
  retry(): void {
    this.start();
  }

  /** Ends the poll in flight and asks nothing more. */
  stop(): void {
    this.#abort?.abort();
    this.#abort = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #poll(signal: AbortSignal): Promise<void> {
    const began = this.#now();
    let waitMs: number;
    try {
      const snapshot = await this.#options.fetchSnapshot(this.#version, signal);
      if (signal.aborted) return;
      this.#version = snapshot.version;
      this.#failures = 0;
      this.#options.onSnapshot(snapshot);
      this.#options.onStatus({ kind: 'live' });
      waitMs = Math.max(0, began + MIN_POLL_INTERVAL_MS - this.#now());
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
        this.#options.onStatus({ kind: error.status === 401 ? 'stopped' : 'unavailable' });
        return;
      }
      this.#failures += 1;
      waitMs =
        error instanceof OperationsBusy
          ? error.retryAfterSeconds * 1000
          : RETRY_DELAYS_MS[Math.min(this.#failures, RETRY_DELAYS_MS.length) - 1]!;
      this.#options.onStatus({ kind: 'retrying', retryAt: this.#now() + waitMs });
    }
    this.#timer = setTimeout(() => void this.#poll(signal), waitMs);
  }
}
