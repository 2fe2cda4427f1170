import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeStageSdk } from '@/testing/fake-stage-sdk';
import {
  EARLY_SESSION_TTL_MS,
  EarlyStageSessions,
  INTENT_JOINS_PER_MINUTE,
  INTENT_SESSION_TTL_MS,
  STANDBY_SESSION_TTL_MS,
} from './early-stage-sessions';
import { StageSession } from './stage-session';

let sdk: FakeStageSdk;
let tokenFetches: string[];

let now: number;

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
    EARLY_SESSION_TTL_MS,
    () => now,
  );
}

/** Each stage's joins and leaves, in the order the stages were made. */
const joinsAndLeaves = () => sdk.stages.map((stage) => [stage.joinCalls, stage.leaveCalls]);

beforeEach(() => {
  vi.useFakeTimers();
  sdk = new FakeStageSdk();
  tokenFetches = [];
  now = 0;
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
    sdk.lastStage.connect();

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

describe('EarlyStageSessions, joins on intent (decision 0091)', () => {
  it('joins on intent, leaves when the intent goes, and joins only the newest intent', async () => {
    const sessions = earlySessions();
    expect(sessions.intend(['N743AS'])).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(joinsAndLeaves()).toEqual([[1, 0]]);

    sessions.intend(['N953AS']); // the pointer moved on to another card
    await vi.advanceTimersByTimeAsync(0);
    expect(joinsAndLeaves()).toEqual([
      [1, 1],
      [1, 0],
    ]);
    sessions.forgo(['N953AS']); // and left it
    expect(joinsAndLeaves()).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(sessions.take('N953AS')).toBeUndefined();
  });

  it('hands the click the join its intent started: one join, no longer left with the intent', async () => {
    const sessions = earlySessions();
    sessions.intend(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    sessions.start('N743AS');
    sessions.forgo(['N743AS']); // the pointer leaves as the page changes
    sessions.forgoAll();
    await vi.advanceTimersByTimeAsync(0);
    expect(tokenFetches).toEqual(['N743AS']);
    expect(joinsAndLeaves()).toEqual([[1, 0]]);
    expect(sessions.take('N743AS')).toBeInstanceOf(StageSession);
  });

  it("the click's join ends after the click's time limit, not the intent's", async () => {
    const sessions = earlySessions();
    sessions.intend(['N743AS']);
    await vi.advanceTimersByTimeAsync(1_000);
    sessions.start('N743AS'); // a click whose navigation never happened
    await vi.advanceTimersByTimeAsync(EARLY_SESSION_TTL_MS);
    expect(joinsAndLeaves()).toEqual([[1, 1]]);
  });

  it('replaces a join on intent that failed with a new one at the click', async () => {
    const sessions = earlySessions();
    sessions.intend(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    sdk.lastStage.failJoin(new Error('Too many streams are open with this account'));
    await vi.advanceTimersByTimeAsync(0);
    sessions.start('N743AS');
    await vi.advanceTimersByTimeAsync(0);
    expect(joinsAndLeaves()).toEqual([
      [1, 1],
      [1, 0],
    ]);
    expect(sessions.take('N743AS')?.getSnapshot().status).toBe('loading');
  });

  it('hands the player no join on intent that failed (a page opened without the click)', async () => {
    const sessions = earlySessions();
    sessions.intend(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    sdk.lastStage.failJoin(new Error('Stage at capacity'));
    await vi.advanceTimersByTimeAsync(0);
    expect(sessions.take('N743AS')).toBeUndefined();
    expect(joinsAndLeaves()).toEqual([[1, 1]]);
  });

  it('joins at most three streams on one intent, and returns the others', async () => {
    const sessions = earlySessions();
    expect(sessions.intend(['A', 'B', 'C', 'D'])).toEqual(['D']);
    await vi.advanceTimersByTimeAsync(0);
    expect(tokenFetches).toEqual(['A', 'B', 'C']);
  });

  it(`joins on intent at most ${INTENT_JOINS_PER_MINUTE} times a minute`, async () => {
    const sessions = earlySessions();
    for (let index = 0; index < INTENT_JOINS_PER_MINUTE; index += 1) {
      expect(sessions.intend([`S${index % 2}`])).toEqual([]); // the pointer goes to and fro
      await vi.advanceTimersByTimeAsync(0);
      now += 1_000;
    }
    expect(sessions.intend(['S0'])).toEqual(['S0']); // the minute's budget is spent
    now = 60_000; // the first join of the minute is a minute old
    expect(sessions.intend(['S0'])).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(sdk.stages).toHaveLength(INTENT_JOINS_PER_MINUTE + 1);
  });

  it('leaves a join on intent nobody took after its time limit', async () => {
    const sessions = earlySessions();
    sessions.intend(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    sdk.lastStage.connect();
    await vi.advanceTimersByTimeAsync(INTENT_SESSION_TTL_MS - 1);
    expect(joinsAndLeaves()).toEqual([[1, 0]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(joinsAndLeaves()).toEqual([[1, 1]]);
  });

  it("forgoAll leaves the intents' joins and keeps the clicks'", async () => {
    const sessions = earlySessions();
    sessions.start('N743AS');
    sessions.intend(['N953AS']);
    await vi.advanceTimersByTimeAsync(0);
    sessions.forgoAll();
    expect(joinsAndLeaves()).toEqual([
      [1, 0],
      [1, 1],
    ]);
    expect(sessions.has('N743AS')).toBe(true);
  });
});

describe('EarlyStageSessions, joins on standby (decision 0112)', () => {
  const EVERY = ['N743AS', 'N953AS', 'N954AS'];

  it('joins each stream on standby, and the click shows its own with no second join', async () => {
    const sessions = earlySessions();
    sessions.standBy(EVERY);
    sessions.standBy(EVERY); // the next sign of life: nothing more while they wait
    await vi.advanceTimersByTimeAsync(0);
    expect(tokenFetches).toEqual(EVERY);
    expect(sdk.stages.map((stage) => stage.configuration.standby)).toEqual([true, true, true]);
    expect(sdk.stages.map((stage) => stage.subscribesTo())).toEqual(['none', 'none', 'none']);
    for (const stage of sdk.stages) stage.connect();

    sessions.start('N953AS');
    const shown = sdk.stages[1]!;
    // Shown as its player takes it: its first frame comes once there is a video to show it.
    expect(shown.subscribesTo()).toBe('none');
    // The page goes with the click: the other two are left, the click's is the player's.
    sessions.forgoAll();
    expect(joinsAndLeaves()).toEqual([
      [1, 1],
      [1, 0],
      [1, 1],
    ]);
    expect(sessions.take('N953AS')?.getSnapshot().status).toBe('connected');
    expect(shown.subscribesTo()).toEqual(['video']);
    expect(shown.refreshCalls).toBe(1);
    expect(tokenFetches).toEqual(EVERY);
  });

  it('shows a session on standby the player takes without a click', async () => {
    const sessions = earlySessions();
    sessions.standBy(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    expect(sessions.take('N743AS')).toBeInstanceOf(StageSession);
    expect(sdk.lastStage.subscribesTo()).toEqual(['video']);
  });

  it('spends the same minute’s budget as the joins on intent', async () => {
    const sessions = earlySessions();
    for (let index = 0; index < INTENT_JOINS_PER_MINUTE - 1; index += 1) {
      sessions.intend([`S${index % 2}`]);
      await vi.advanceTimersByTimeAsync(0);
    }
    sessions.forgoAll();
    sessions.standBy(EVERY); // one join left in the minute
    expect(sessions.intend(['S0'])).toEqual(['S0']);
    await vi.advanceTimersByTimeAsync(0);
    expect(tokenFetches.slice(INTENT_JOINS_PER_MINUTE - 1)).toEqual(['N743AS']);
  });

  it('leaves a join on standby after its time limit; the next sign of life joins again', async () => {
    const sessions = earlySessions();
    sessions.standBy(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    sdk.lastStage.connect();
    await vi.advanceTimersByTimeAsync(STANDBY_SESSION_TTL_MS);
    expect(joinsAndLeaves()).toEqual([[1, 1]]);
    sessions.standBy(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    expect(joinsAndLeaves()).toEqual([
      [1, 1],
      [1, 0],
    ]);
  });

  it('leaves a join on standby that lost its connection, and the click joins anew', async () => {
    const sessions = earlySessions();
    sessions.standBy(['N743AS']);
    await vi.advanceTimersByTimeAsync(0);
    sdk.lastStage.connect();
    sdk.lastStage.dropConnection(); // its seat went to a viewer of the account, say
    await vi.advanceTimersByTimeAsync(0);
    expect(joinsAndLeaves()).toEqual([[1, 1]]);
    expect(sessions.has('N743AS')).toBe(false);
    sessions.start('N743AS');
    await vi.advanceTimersByTimeAsync(0);
    expect(sdk.stages).toHaveLength(2);
    expect(sdk.lastStage.configuration.standby).toBeUndefined();
    expect(sdk.lastStage.subscribesTo()).toEqual(['video']);
  });
});

describe('EarlyStageSessions, an intent on a join on standby', () => {
  it('shows it at once, without a second join, and leaves it when the intent goes', async () => {
    const sessions = earlySessions();
    sessions.standBy(['N743AS', 'N953AS']);
    await vi.advanceTimersByTimeAsync(0);
    for (const stage of sdk.stages) stage.connect();
    expect(sessions.intend(['N743AS'])).toEqual([]);
    expect(sdk.stages[0]!.subscribesTo()).toEqual(['video']);
    expect(sdk.stages[1]!.subscribesTo()).toBe('none');
    sessions.forgo(['N743AS']);
    expect(joinsAndLeaves()).toEqual([
      [1, 1],
      [1, 0],
    ]);
    expect(tokenFetches).toEqual(['N743AS', 'N953AS']);
  });
});
