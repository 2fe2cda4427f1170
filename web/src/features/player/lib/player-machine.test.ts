import { describe, expect, it } from 'vitest';
import { backoffPolicy } from '@tailcam/protocol/reconnect-policy';
import { PLAYER_RECONNECT, transition, type PlayerEvent, type PlayerState } from './player-machine';

const loading: PlayerState = { status: 'loading' };
const connected: PlayerState = { status: 'connected', waitingForVideo: false };
const waiting: PlayerState = { status: 'connected', waitingForVideo: true };
const reconnecting = (attempt: number): PlayerState => ({ status: 'reconnecting', attempt });
const error = (message: string): PlayerState => ({ status: 'error', message });

const CONNECTED: PlayerEvent = { type: 'STAGE_CONNECTED' };
const DISCONNECTED: PlayerEvent = { type: 'STAGE_DISCONNECTED' };
const RETRY: PlayerEvent = { type: 'RETRY' };
const stageError = (message: string): PlayerEvent => ({ type: 'STAGE_ERROR', message });
const attemptFailed = (message: string): PlayerEvent => ({ type: 'ATTEMPT_FAILED', message });
const stopped = (message: string): PlayerEvent => ({ type: 'RECONNECT_STOPPED', message });
const VIDEO_ADDED: PlayerEvent = { type: 'VIDEO_ADDED' };
const VIDEO_MISSING: PlayerEvent = { type: 'VIDEO_MISSING' };

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
      'a failed attempt keeps reconnecting: when to stop is the policy’s',
      reconnecting(6),
      attemptFailed('gone'),
      reconnecting(7),
    ],
    [
      'the policy giving up shows the last message',
      reconnecting(6),
      stopped('gone'),
      error('gone'),
    ],
    [
      'connected with no video for the grace period waits for it',
      connected,
      VIDEO_MISSING,
      waiting,
    ],
    ['a video added ends the wait', waiting, VIDEO_ADDED, connected],
    ['a video added while playing changes nothing', connected, VIDEO_ADDED, connected],
    [
      'a reconnect starts from a lost connection while waiting',
      waiting,
      DISCONNECTED,
      reconnecting(1),
    ],
    ['a reconnect that connects is not waiting at first', reconnecting(2), CONNECTED, connected],
    ['no video is waited for before the stage connects', loading, VIDEO_MISSING, loading],
    [
      'a missing video while reconnecting is the reconnect’s',
      reconnecting(1),
      VIDEO_MISSING,
      reconnecting(1),
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

  it('reconnects at once, then after 0.5, 1, 2, 4 and 8 s, and stops after six attempts', () => {
    const policy = backoffPolicy({ ...PLAYER_RECONNECT, random: () => 0 });
    const delays = Array.from({ length: 7 }, (_, i) => policy.nextDelayMs(i + 1));
    expect(delays).toEqual([0, 500, 1000, 2000, 4000, 8000, null]);
  });

  it('spreads the waits by up to a quarter, never the first attempt, within 19.4 s in all', () => {
    const policy = backoffPolicy({ ...PLAYER_RECONNECT, random: () => 0.9999 });
    const delays = Array.from({ length: 6 }, (_, i) => policy.nextDelayMs(i + 1) ?? 0);
    expect(delays[0]).toBe(0);
    expect(delays[1]).toBeGreaterThan(620);
    expect(delays[1]).toBeLessThanOrEqual(625);
    expect(delays.reduce((sum, delay) => sum + delay, 0)).toBeLessThanOrEqual(19_375);
  });
});
