/**
 * The player's connection lifecycle (docs/product.md#player-states) as a pure transition function.
 *
 *   loading ──CONNECTED──▶ connected ──DISCONNECTED──▶ reconnecting(1)
 *      │                     │                          │  ATTEMPT_FAILED: reconnecting(n + 1),
 *      │ ATTEMPT_FAILED,     │ STAGE_ERROR              │  or error once the attempts run out
 *      │ STAGE_ERROR         ▼                          │  CONNECTED: connected
 *      └──────────────────▶ error ◀─────────────────────┘
 *                            │ RETRY
 *                            ▼
 *                         loading
 *
 * A first failure (token or join) goes straight to `error`, as the spec says; only a connection
 * that was up and then lost is retried on its own, with backoff and a bound. While reconnecting,
 * the outcome of each attempt decides: stage errors raised by a failing attempt do not end it.
 */

export type PlayerState =
  | { status: 'loading' }
  | { status: 'connected' }
  | { status: 'reconnecting'; attempt: number }
  | { status: 'error'; message: string };

export type PlayerEvent =
  | { type: 'STAGE_CONNECTED' }
  | { type: 'STAGE_DISCONNECTED' }
  | { type: 'STAGE_ERROR'; message: string }
  /** Fetching a participant token, creating the stage or joining it failed. */
  | { type: 'ATTEMPT_FAILED'; message: string }
  /** The viewer asked for a new attempt ('Retry Connection'). */
  | { type: 'RETRY' };

/** Attempts after a lost connection before the error overlay stays (about 15 s in all). */
export const MAX_RECONNECT_ATTEMPTS = 6;

/** Delay before reconnect attempt `attempt` (1-based): at once, then 0.5, 1, 2, 4 and 8 s. */
export function reconnectDelayMs(attempt: number): number {
  return attempt <= 1 ? 0 : Math.min(500 * 2 ** (attempt - 2), 8_000);
}

export const initialPlayerState: PlayerState = { status: 'loading' };

export function transition(state: PlayerState, event: PlayerEvent): PlayerState {
  switch (state.status) {
    case 'loading':
      switch (event.type) {
        case 'STAGE_CONNECTED':
          return { status: 'connected' };
        case 'STAGE_ERROR':
        case 'ATTEMPT_FAILED':
          return { status: 'error', message: event.message };
        default:
          return state;
      }
    case 'connected':
      switch (event.type) {
        case 'STAGE_DISCONNECTED':
          return { status: 'reconnecting', attempt: 1 };
        case 'STAGE_ERROR':
          return { status: 'error', message: event.message };
        default:
          return state;
      }
    case 'reconnecting':
      switch (event.type) {
        case 'STAGE_CONNECTED':
          return { status: 'connected' };
        case 'ATTEMPT_FAILED':
          return state.attempt < MAX_RECONNECT_ATTEMPTS
            ? { status: 'reconnecting', attempt: state.attempt + 1 }
            : { status: 'error', message: event.message };
        default:
          return state;
      }
    case 'error':
      return event.type === 'RETRY' ? { status: 'loading' } : state;
  }
}
