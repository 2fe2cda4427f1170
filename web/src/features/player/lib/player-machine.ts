/**
 * The player's connection lifecycle (docs/product.md#player-states) as a pure transition function.
 *
 *   loading ──CONNECTED──▶ connected ──DISCONNECTED──▶ reconnecting(1)
 *      │                     │                          │  ATTEMPT_FAILED: reconnecting(n + 1)
 *      │ ATTEMPT_FAILED,     │ STAGE_ERROR              │  RECONNECT_STOPPED: error
 *      │ STAGE_ERROR         ▼                          │  CONNECTED: connected
 *      └──────────────────▶ error ◀─────────────────────┘
 *                            │ RETRY
 *                            ▼
 *                         loading
 *
 * A first failure (token or join) goes straight to `error`, as the spec says; only a connection
 * that was up and then lost is retried on its own. How long each retry waits, and when retrying
 * stops, is the session's reconnect policy, not the machine's. While reconnecting, the outcome of
 * each attempt decides: stage errors raised by a failing attempt do not end it.
 *
 * While connected, `waitingForVideo` says whether the player tells the viewer it is waiting for
 * a picture (docs/product.md#when-there-is-no-picture): VIDEO_MISSING sets it, VIDEO_ADDED clears
 * it. The grace period before VIDEO_MISSING is the session's timer.
 */
import {
  backoffPolicy,
  type BackoffOptions,
  type ReconnectPolicy,
} from '@tailcam/protocol/reconnect-policy';

export type PlayerState =
  | { status: 'loading' }
  | { status: 'connected'; waitingForVideo: boolean }
  | { status: 'reconnecting'; attempt: number }
  | { status: 'error'; message: string };

export type PlayerEvent =
  | { type: 'STAGE_CONNECTED' }
  | { type: 'STAGE_DISCONNECTED' }
  | { type: 'STAGE_ERROR'; message: string }
  /** Fetching a participant token, creating the stage or joining it failed. */
  | { type: 'ATTEMPT_FAILED'; message: string }
  /** The reconnect policy gave up: the error overlay stays, with the last attempt's message. */
  | { type: 'RECONNECT_STOPPED'; message: string }
  /** The viewer asked for a new attempt ('Retry Connection'). */
  | { type: 'RETRY' }
  /** A video stream was attached. */
  | { type: 'VIDEO_ADDED' }
  /** Connected, and no video for the grace period (none added, or the shown one removed). */
  | { type: 'VIDEO_MISSING' };

export const initialPlayerState: PlayerState = { status: 'loading' };

// Connected is not waiting at first: a normal join adds the video a moment after CONNECTED.
const connectedWithVideo: PlayerState = { status: 'connected', waitingForVideo: false };

export function transition(state: PlayerState, event: PlayerEvent): PlayerState {
  switch (state.status) {
    case 'loading':
      switch (event.type) {
        case 'STAGE_CONNECTED':
          return connectedWithVideo;
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
        case 'VIDEO_ADDED':
          return state.waitingForVideo ? connectedWithVideo : state;
        case 'VIDEO_MISSING':
          return state.waitingForVideo ? state : { status: 'connected', waitingForVideo: true };
        default:
          return state;
      }
    case 'reconnecting':
      switch (event.type) {
        case 'STAGE_CONNECTED':
          return connectedWithVideo;
        case 'ATTEMPT_FAILED':
          return { status: 'reconnecting', attempt: state.attempt + 1 };
        case 'RECONNECT_STOPPED':
          return { status: 'error', message: event.message };
        default:
          return state;
      }
    case 'error':
      return event.type === 'RETRY' ? { status: 'loading' } : state;
  }
}

/**
 * After a lost connection (docs/product.md#player-states): at once, then 0.5, 1, 2, 4 and 8 s,
 * each wait up to a quarter longer at random so that the viewers of a restarted stage spread
 * out; six attempts, then the error overlay stays.
 */
export const PLAYER_RECONNECT: BackoffOptions = {
  immediateFirst: true,
  baseMs: 500,
  factor: 2,
  maxMs: 8_000,
  maxAttempts: 6,
  jitter: 0.25,
};

export function playerReconnectPolicy(): ReconnectPolicy {
  return backoffPolicy(PLAYER_RECONNECT);
}
