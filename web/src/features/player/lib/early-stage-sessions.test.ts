import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeStageSdk } from '@/testing/fake-stage-sdk';
import { EARLY_SESSION_TTL_MS, EarlyStageSessions } from './early-stage-sessions';
import { StageSession } from './stage-session';

let sdk: FakeStageSdk;
let tokenFetches: string[];

function earlySessions() {
  return new EarlyStageSessions(
    (stageId) =>
      new StageSession({
        stageId,
        getSdk: () => sdk.asStageSdk(),
        fetchParticipantToken: (id) => {
          tokenFetches.push(id);
          return Promise.resolve(`token-${id}`);
        },
      }),
  );
}

beforeEach(() => {
  vi.useFakeTimers();
  sdk = new FakeStageSdk();
  tokenFetches = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('EarlyStageSessions', () => {
  it('starts joining at once and hands the session to the player once', async () => {
    const sessions = earlySessions();
    sessions.start('N743AS');
    sessions.start('N743AS'); // a second click while the first waits: still one join
    await vi.advanceTimersByTimeAsync(0);
    expect(tokenFetches).toEqual(['N743AS']);
    expect(sdk.stages).toHaveLength(1);
    expect(sdk.lastStage.joinCalls).toBe(1);

    const taken = sessions.take('N743AS');
    expect(taken).toBeInstanceOf(StageSession);
    expect(sessions.take('N743AS')).toBeUndefined();
    // Taken, it is the player's: the time limit no longer ends it.
    await vi.advanceTimersByTimeAsync(EARLY_SESSION_TTL_MS * 2);
    expect(sdk.lastStage.leaveCalls).toBe(0);
  });

  it('leaves a session nobody took in time, and nothing is left to take', async () => {
    const sessions = earlySessions();
    sessions.start('N953AS');
    await vi.advanceTimersByTimeAsync(0);
    sdk.lastStage.connect();
    await vi.advanceTimersByTimeAsync(EARLY_SESSION_TTL_MS);
    expect(sdk.lastStage.leaveCalls).toBe(1);
    expect(sessions.take('N953AS')).toBeUndefined();
  });

  it('leaves every waiting session on clear', async () => {
    const sessions = earlySessions();
    sessions.start('N743AS');
    sessions.start('N954AS');
    await vi.advanceTimersByTimeAsync(0);
    sessions.clear();
    expect(sdk.stages.map((stage) => stage.leaveCalls)).toEqual([1, 1]);
    expect(sessions.take('N743AS')).toBeUndefined();
  });
});
