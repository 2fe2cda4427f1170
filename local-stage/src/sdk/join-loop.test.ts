/**
 * The join loop alone (its timing on a fake clock), and its cancellation through the public
 * Stage against a port that cuts every connection, as a stage mid-restart would.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { StageConnectionState, StageEvents, StageLeftReason, SubscribeType } from './enums';
import { ivsError, type StageError } from './errors';
import { backoffPolicy } from '@tailcam/protocol/reconnect-policy';
import { JOIN_RETRY, joinWithRetries, type JoinOutcome } from './join-loop';
import { Stage } from './stage';
import { testParticipantToken } from '../testing/participant-tokens';
import { waitUntil } from '../testing/wait-until';

Object.defineProperty(globalThis, 'WebSocket', { value: WebSocket, configurable: true });

const CANCELED = { name: 'StageError', code: 5, category: 'JOIN_ERROR' };
/** The join loop's schedule with its jitter at either end of its range. */
const shortest = backoffPolicy({ ...JOIN_RETRY, random: () => 0 });
const longest = backoffPolicy({ ...JOIN_RETRY, random: () => 1 }); // the top of Math.random's range

afterEach(() => {
  vi.useRealTimers();
});

/** An attempt that never reaches the stage, recording when it was made. */
function unreachable(started: number) {
  const times: number[] = [];
  const attempt = (): Promise<JoinOutcome> => {
    times.push(Date.now() - started);
    return Promise.resolve('retry');
  };
  return { attempt, times };
}

describe('the join loop', () => {
  it('tries again after 200 ms, half as long again each time up to 2 s, and times out at the deadline', async () => {
    vi.useFakeTimers({ now: 0 });
    const { attempt, times } = unreachable(0);
    const joining = joinWithRetries(attempt, 8_000, new AbortController().signal, shortest).catch(
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(8_000);
    // 200 ms × 1.5ⁿ: 200, 300, 450, 675, 1012, 1518, then 2000, and the last wait ends at the deadline.
    expect(times).toEqual([0, 200, 500, 950, 1625, 2637, 4155, 6155, 8000]);
    expect(await joining).toMatchObject({ code: 3, message: '[JOIN_ERROR] Operation timed out' });
  });

  it('makes each wait up to a quarter longer at random, so that viewers of a restarted stage spread out', async () => {
    vi.useFakeTimers({ now: 0 });
    const { attempt, times } = unreachable(0);
    const joining = joinWithRetries(attempt, 8_000, new AbortController().signal, longest).catch(
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(8_000);
    // 250, 375, 562.5, 843.75, 1265.6, 1898.4, then 2500, and the deadline.
    expect(times).toEqual([0, 250, 625, 1187, 2030, 3295, 5193, 7693, 8000]);
    expect(await joining).toMatchObject({ code: 3 });
  });

  it('ends at once with the refusal when the stage refuses the join', async () => {
    let attempts = 0;
    const refusal = ivsError(2, 'JOIN_ERROR');
    const joining = joinWithRetries(
      () => {
        attempts += 1;
        return Promise.resolve(refusal);
      },
      60_000,
      new AbortController().signal,
    );
    await expect(joining).rejects.toBe(refusal);
    expect(attempts).toBe(1);
  });

  it('an abort during a retry wait rejects at once with CANCELED, and no attempt follows', async () => {
    vi.useFakeTimers({ now: 0 });
    const { attempt, times } = unreachable(0);
    const abort = new AbortController();
    const joining = joinWithRetries(attempt, 60_000, abort.signal, shortest).catch(
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(100); // inside the first 200 ms wait
    abort.abort();
    expect(await joining).toMatchObject(CANCELED);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(times).toEqual([0]);
  });

  it('an abort during an attempt rejects with CANCELED once the attempt gives way', async () => {
    const abort = new AbortController();
    let attempts = 0;
    const joining = joinWithRetries(
      (_deadline, signal) => {
        attempts += 1;
        // As joinOnce does: an aborted attempt ends, as a retry.
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve('retry')));
      },
      60_000,
      abort.signal,
    );
    abort.abort();
    await expect(joining).rejects.toMatchObject(CANCELED);
    expect(attempts).toBe(1);
  });
});

describe('leave() while the join is retrying', () => {
  let refusing: Server | undefined;

  afterEach(async () => {
    await new Promise((resolve) => refusing?.close(resolve));
  });

  it('rejects join() at once with CANCELED, ends with stageLeft, and never connects again', async () => {
    const attempts: number[] = [];
    refusing = createServer((socket) => {
      attempts.push(Date.now());
      socket.destroy();
    });
    await new Promise<void>((resolve) => refusing?.listen(0, '127.0.0.1', resolve));
    const port = (refusing.address() as AddressInfo).port;
    const stage = new Stage(
      await testParticipantToken({
        secret: new TextEncoder().encode('a-join-loop-test-secret-long-enough!!!!!'),
        stageUrl: `http://127.0.0.1:${port}`,
        participantId: 'join-loop-viewer',
        stageId: 'N743AS',
      }),
      {
        stageStreamsToPublish: () => [],
        shouldPublishParticipant: () => false,
        shouldSubscribeToParticipant: () => SubscribeType.NONE,
      },
    );
    const events: string[] = [];
    stage.on(StageEvents.STAGE_CONNECTION_STATE_CHANGED, (state) => events.push(state));
    stage.on(StageEvents.STAGE_LEFT, (reason) => events.push(`left:${reason}`));
    stage.on(StageEvents.ERROR, (error: StageError) => events.push(`error:${error.message}`));

    const joining = stage.join().catch((error: unknown) => error);
    await waitUntil(() => attempts.length > 0, 'the first attempt', 10_000, 5);
    // The socket is cut; the loop waits its 200 ms before the next attempt.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const left = performance.now();
    stage.leave();
    expect(await joining).toMatchObject(CANCELED);
    expect(performance.now() - left).toBeLessThan(50);
    expect(events).toEqual([
      StageConnectionState.CONNECTING,
      StageConnectionState.DISCONNECTED,
      `left:${StageLeftReason.USER_INITIATED}`,
    ]);
    const seen = attempts.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(attempts).toHaveLength(seen);
  });
});
