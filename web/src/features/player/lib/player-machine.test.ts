import { describe, expect, it } from 'vitest';
import {
  MAX_RECONNECT_ATTEMPTS,
  reconnectDelayMs,
  transition,
  type PlayerEvent,
  type PlayerState,
} from './player-machine';

const loading: PlayerState = { status: 'loading' };
const connected: PlayerState = { status: 'connected' };
const reconnecting = (attempt: number): PlayerState => ({ status: 'reconnecting', attempt });
const error = (message: string): PlayerState => ({ status: 'error', message });

const CONNECTED: PlayerEvent = { type: 'STAGE_CONNECTED' };
const DISCONNECTED: PlayerEvent = { type: 'STAGE_DISCONNECTED' };
const RETRY: PlayerEvent = { type: 'RETRY' };
const stageError = (message: string): PlayerEvent => ({ type: 'STAGE_ERROR', message });
const attemptFailed = (message: string): PlayerEvent => ({ type: 'ATTEMPT_FAILED', message });

describe('player state machine', () => {
  it.each<[string, PlayerState, PlayerEvent, PlayerState]>([
    ['loading ends when the stage connects', loading, CONNECTED, connected],
    [
      'a first failed attempt shows the error at once',
      loading,
      attemptFailed('boom'),
      error('boom'),
    ],
    ['a stage error while loading shows its message', loading, stageError('bad'), error('bad')],
    ['a disconnect before the first connect leaves it to the join', loading, DISCONNECTED, loading],
    ['retry is ignored while loading', loading, RETRY, loading],
    ['a lost connection starts reconnecting', connected, DISCONNECTED, reconnecting(1)],
    ['a stage error while playing shows its message', connected, stageError('x'), error('x')],
    ['a repeated connected keeps playing', connected, CONNECTED, connected],
    ['a reconnect that connects plays again', reconnecting(3), CONNECTED, connected],
    [
      'a failed reconnect attempt tries again',
      reconnecting(1),
      attemptFailed('no'),
      reconnecting(2),
    ],
    [
      'the last failed reconnect attempt shows its error',
      reconnecting(MAX_RECONNECT_ATTEMPTS),
      attemptFailed('gone'),
      error('gone'),
    ],
    [
      'a stage error during a reconnect attempt is left to the attempt',
      reconnecting(2),
      stageError('e'),
      reconnecting(2),
    ],
    [
      'another disconnect while reconnecting changes nothing',
      reconnecting(2),
      DISCONNECTED,
      reconnecting(2),
    ],
    ['retry from the error overlay loads again', error('x'), RETRY, loading],
    ['late stage events after an error are ignored', error('x'), CONNECTED, error('x')],
    [
      'late failures after an error keep the first message',
      error('x'),
      attemptFailed('y'),
      error('x'),
    ],
  ])('%s', (_name, state, event, expected) => {
    expect(transition(state, event)).toEqual(expected);
  });

  it('returns the same object when nothing changes, so subscribers are not woken', () => {
    expect(transition(loading, RETRY)).toBe(loading);
  });

  it('reconnects at once, then backs off to at most 8 seconds', () => {
    const delays = Array.from({ length: MAX_RECONNECT_ATTEMPTS }, (_, i) =>
      reconnectDelayMs(i + 1),
    );
    expect(delays).toEqual([0, 500, 1000, 2000, 4000, 8000]);
    expect(reconnectDelayMs(20)).toBe(8000);
  });
});
