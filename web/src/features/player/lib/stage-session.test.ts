import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeStageSdk, fakeTrack, seiMessageFrom } from '@/testing/fake-stage-sdk';
import { backoffPolicy } from '@tailcam/protocol/reconnect-policy';
import { PLAYER_RECONNECT } from './player-machine';
import { ATTEMPT_TIMEOUT_MS, StageSession, VIDEO_GRACE_MS } from './stage-session';

const MAX_RECONNECT_ATTEMPTS = PLAYER_RECONNECT.maxAttempts ?? 0;
const connected = { status: 'connected', waitingForVideo: false };
const waiting = { status: 'connected', waitingForVideo: true };

interface PendingFetch {
  resolve: (token: string) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
}

let sdk: FakeStageSdk;
let fetches: PendingFetch[];
let tracks: MediaStreamTrack[];
let removals: number;

function createSession(options: { sdkLoaded?: boolean } = {}) {
  const session = new StageSession({
    stageId: 'N743AS',
    getSdk: () => (options.sdkLoaded === false ? undefined : sdk.asStageSdk()),
    fetchParticipantToken: (_stageId, signal) =>
      new Promise<string>((resolve, reject) => fetches.push({ resolve, reject, signal })),
    // The player's schedule without its jitter, so that the waits can be checked to the millisecond.
    reconnectPolicy: backoffPolicy({ ...PLAYER_RECONNECT, random: () => 0 }),
  });
  session.showIn({
    onVideoTrack: (track) => tracks.push(track),
    onVideoRemoved: () => (removals += 1),
  });
  return session;
}

/** Lets awaited promises inside the session settle. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
  sdk = new FakeStageSdk();
  fetches = [];
  tracks = [];
  removals = 0;
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function connectedSession() {
  const session = createSession();
  session.start();
  fetches.at(-1)?.resolve('token-1');
  await settle();
  sdk.lastStage.connect();
  await settle();
  expect(session.getSnapshot()).toEqual(connected);
  return session;
}

describe('StageSession', () => {
  it('ignores a second start and a retry while the first token fetch is in flight', async () => {
    const session = createSession();
    session.start();
    session.start();
    session.retry();
    expect(fetches).toHaveLength(1);
    fetches[0]?.resolve('token-1');
    await settle();
    expect(sdk.stages).toHaveLength(1);
    expect(sdk.lastStage.joinCalls).toBe(1);
  });

  it('sends at most one token fetch at a time, even when retry is pressed repeatedly', async () => {
    const session = createSession();
    session.start();
    fetches[0]?.reject(new Error('Failed to fetch participant token'));
    await settle();
    expect(session.getSnapshot()).toEqual({
      status: 'error',
      message: 'Failed to fetch participant token',
    });
    session.retry();
    session.retry();
    session.retry();
    expect(fetches).toHaveLength(2);
  });

  it('hands the first video track of added streams to the page', async () => {
    await connectedSession();
    const track = fakeTrack('video');
    sdk.lastStage.addVideoStream(track);
    expect(tracks).toEqual([track]);
  });

  it("passes on the shown video's in-band messages, not another participant's, until unsubscribed", async () => {
    const session = await connectedSession();
    const payloads: number[][] = [];
    const stop = session.onInBandMessage(({ payload }) =>
      payloads.push([...new Uint8Array(payload)]),
    );
    seiMessageFrom(sdk.lastStage, 'publisher', [1]); // before its video: not the shown one yet
    sdk.lastStage.addVideoStream(fakeTrack('video'), 'publisher');
    seiMessageFrom(sdk.lastStage, 'publisher', [2]);
    seiMessageFrom(sdk.lastStage, 'someone-else', [3]);
    stop();
    seiMessageFrom(sdk.lastStage, 'publisher', [4]);
    expect(payloads).toEqual([[2]]);
  });

  it('shows a track that came before the player was there as soon as the player shows up', async () => {
    const session = new StageSession({
      stageId: 'N743AS',
      getSdk: () => sdk.asStageSdk(),
      fetchParticipantToken: () => Promise.resolve('token-1'),
    });
    session.start();
    await settle();
    sdk.lastStage.connect();
    const track = fakeTrack('video');
    sdk.lastStage.addVideoStream(track); // nobody shows it yet: nothing breaks, nothing is lost
    expect(session.getSnapshot()).toEqual(connected);

    const shown: MediaStreamTrack[] = [];
    let removed = 0;
    session.showIn({ onVideoTrack: (t) => shown.push(t), onVideoRemoved: () => (removed += 1) });
    expect(shown).toEqual([track]);
    const next = fakeTrack('video');
    sdk.lastStage.addVideoStream(next);
    expect(shown).toEqual([track, next]);
    session.dispose();
    expect(removed).toBe(1);
  });

  it('rejoins at once after a drop, then backs off, and gives up after the last attempt', async () => {
    const session = await connectedSession();
    sdk.lastStage.dropConnection();
    expect(session.getSnapshot().status).toBe('reconnecting');

    for (let attempt = 1; attempt <= MAX_RECONNECT_ATTEMPTS; attempt += 1) {
      await vi.runOnlyPendingTimersAsync();
      expect(fetches).toHaveLength(1 + attempt);
      fetches.at(-1)?.reject(new Error(`Attempt ${attempt} failed`));
      await settle();
    }
    expect(session.getSnapshot()).toEqual({
      status: 'error',
      message: `Attempt ${MAX_RECONNECT_ATTEMPTS} failed`,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetches).toHaveLength(1 + MAX_RECONNECT_ATTEMPTS);
  });

  it('waits longer between each failed reconnect attempt', async () => {
    await connectedSession();
    sdk.lastStage.dropConnection();
    await settle();
    expect(fetches).toHaveLength(2); // the first attempt goes at once
    fetches[1]?.reject(new Error('down'));
    await settle();
    await vi.advanceTimersByTimeAsync(499);
    expect(fetches).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetches).toHaveLength(3);
    fetches[2]?.reject(new Error('down'));
    await settle();
    await vi.advanceTimersByTimeAsync(999);
    expect(fetches).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetches).toHaveLength(4);
  });

  it('counts a failed rejoin as a failed attempt, not as a stage error', async () => {
    const session = await connectedSession();
    sdk.lastStage.dropConnection();
    await settle();
    fetches[1]?.resolve('token-2');
    await settle();
    sdk.lastStage.emit('error', { message: '[JOIN_ERROR] Operation timed out' });
    sdk.lastStage.failJoin(new Error('[JOIN_ERROR] Operation timed out'));
    await settle();
    expect(session.getSnapshot()).toEqual({ status: 'reconnecting', attempt: 2 });
    await vi.advanceTimersByTimeAsync(500);
    fetches[2]?.resolve('token-3');
    await settle();
    sdk.lastStage.connect();
    expect(session.getSnapshot()).toEqual(connected);
  });

  describe('an attempt that never ends', () => {
    it('fails a rejoin the stage never answers, leaves it, and tries again on schedule', async () => {
      const session = await connectedSession();
      sdk.lastStage.dropConnection();
      await settle();
      fetches[1]?.resolve('token-2');
      await settle();
      const hanging = sdk.lastStage; // its join() neither resolves nor rejects
      await vi.advanceTimersByTimeAsync(ATTEMPT_TIMEOUT_MS - 1);
      expect(session.getSnapshot()).toEqual({ status: 'reconnecting', attempt: 1 });
      await vi.advanceTimersByTimeAsync(1);
      expect(session.getSnapshot()).toEqual({ status: 'reconnecting', attempt: 2 });
      expect(hanging.leaveCalls).toBe(1);
      expect(hanging.listenerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(500);
      expect(fetches).toHaveLength(3);
    });

    it('aborts a token fetch that never answers, and gives up in the schedule’s time, not later', async () => {
      const session = await connectedSession();
      sdk.lastStage.dropConnection();
      await settle();
      await vi.advanceTimersByTimeAsync(ATTEMPT_TIMEOUT_MS);
      expect(fetches[1]?.signal.aborted).toBe(true);
      expect(session.getSnapshot()).toEqual({ status: 'reconnecting', attempt: 2 });
      // Every attempt hangs: six bounds plus the schedule's waits, then the error overlay stays.
      await vi.advanceTimersByTimeAsync(MAX_RECONNECT_ATTEMPTS * ATTEMPT_TIMEOUT_MS + 15_500);
      expect(session.getSnapshot()).toEqual({
        status: 'error',
        message: 'The stream did not answer in time.',
      });
      expect(fetches).toHaveLength(1 + MAX_RECONNECT_ATTEMPTS);
    });

    it("leaves the first join to the SDK's own time-out and message", async () => {
      const session = createSession();
      session.start();
      fetches[0]?.resolve('token-1');
      await settle();
      await vi.advanceTimersByTimeAsync(5 * ATTEMPT_TIMEOUT_MS);
      expect(session.getSnapshot()).toEqual({ status: 'loading' });
      sdk.lastStage.failJoin(new Error('[JOIN_ERROR] Operation timed out'));
      await settle();
      expect(session.getSnapshot()).toEqual({
        status: 'error',
        message: '[JOIN_ERROR] Operation timed out',
      });
    });

    it('never ends a join that connected, however long the session then plays', async () => {
      const session = await connectedSession();
      await vi.advanceTimersByTimeAsync(10 * ATTEMPT_TIMEOUT_MS);
      expect(session.getSnapshot().status).toBe('connected');
      expect(sdk.lastStage.leaveCalls).toBe(0);
    });
  });

  it('stops everything on dispose: no late join after a token arrives, no reconnect timer', async () => {
    const session = createSession();
    session.start();
    session.dispose();
    expect(fetches[0]?.signal.aborted).toBe(true);
    fetches[0]?.resolve('token-1');
    await settle();
    expect(sdk.stages).toHaveLength(0);

    const playing = await connectedSession();
    const stage = sdk.lastStage;
    stage.dropConnection();
    playing.dispose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sdk.stages).toHaveLength(1);
    expect(fetches).toHaveLength(2);
    expect(stage.listenerCount()).toBe(0);
  });

  it('reports the missing SDK without asking for a token', () => {
    const session = createSession({ sdkLoaded: false });
    session.start();
    expect(session.getSnapshot()).toMatchObject({ status: 'error' });
    expect(fetches).toHaveLength(0);
  });

  it('says in plain words that the browser has no WebRTC, without asking for a token', () => {
    vi.stubGlobal('RTCPeerConnection', undefined);
    const session = createSession();
    session.start();
    expect(session.getSnapshot()).toEqual({
      status: 'error',
      message:
        'This browser cannot play live video: it has no WebRTC. Open Tailcam in a current Chrome, Edge, Firefox or Safari.',
    });
    expect(fetches).toHaveLength(0);
    expect(sdk.stages).toHaveLength(0);
  });

  it('gives the same snapshot until the state changes', async () => {
    const session = createSession();
    const first = session.getSnapshot();
    session.start();
    session.retry(); // ignored while loading
    expect(session.getSnapshot()).toBe(first);
    fetches[0]?.resolve('token-1');
    await settle();
    sdk.lastStage.connect();
    const playing = session.getSnapshot();
    expect(playing).not.toBe(first);
    sdk.lastStage.connect();
    expect(session.getSnapshot()).toBe(playing);
  });

  it('wakes subscribers on every change of state and not otherwise', async () => {
    const session = createSession();
    const subscriber = vi.fn();
    session.subscribe(subscriber);
    session.start();
    fetches[0]?.resolve('token-1');
    await settle();
    sdk.lastStage.connect(); // connecting, then connected: only the second changes state
    expect(subscriber).toHaveBeenCalledTimes(1);
  });

  describe('on standby (decision 0112)', () => {
    it('asks for no video and says nothing of its absence until shown, then asks and waits', async () => {
      const session = createSession();
      session.standBy();
      fetches[0]?.resolve('token-1');
      await settle();
      const stage = sdk.lastStage;
      expect(stage.configuration.standby).toBe(true);
      expect(stage.subscribesTo()).toBe('none');
      stage.connect();
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS * 2);
      expect(session.getSnapshot()).toEqual(connected);

      session.show();
      expect(stage.subscribesTo()).toEqual(['video']);
      expect(stage.refreshCalls).toBe(1);
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS);
      expect(session.getSnapshot()).toEqual(waiting);
    });

    it('does nothing on show() for a session that was never on standby', async () => {
      const session = await connectedSession();
      expect(sdk.lastStage.configuration.standby).toBeUndefined();
      session.show(); // not on standby: nothing to do
      expect(sdk.lastStage.refreshCalls).toBe(0);
      expect(sdk.lastStage.subscribesTo()).toEqual(['video']);
    });
  });

  describe('when there is no picture', () => {
    it('says it is waiting only after the grace period with no video', async () => {
      const session = await connectedSession();
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS - 1);
      expect(session.getSnapshot()).toEqual(connected);
      await vi.advanceTimersByTimeAsync(1);
      expect(session.getSnapshot()).toEqual(waiting);
    });

    it('never says so when the video comes within the grace period, as on every normal join', async () => {
      const session = await connectedSession();
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS - 100);
      sdk.lastStage.addVideoStream(fakeTrack('video'));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(session.getSnapshot()).toEqual(connected);
    });

    it('waits again when the shown video is removed, and attaches the next one', async () => {
      const session = await connectedSession();
      const streams = sdk.lastStage.addVideoStream(fakeTrack('video'), 'camera-1');
      expect(session.videoStream).toBe(streams[1]);
      sdk.lastStage.removeStreams(streams, 'camera-1');
      expect(removals).toBe(1);
      expect(session.videoStream).toBeUndefined();
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS);
      expect(session.getSnapshot()).toEqual(waiting);

      const next = fakeTrack('video');
      sdk.lastStage.addVideoStream(next, 'encoder-2');
      expect(tracks.at(-1)).toBe(next);
      expect(session.getSnapshot()).toEqual(connected);
    });

    it('waits again when the shown video’s participant leaves, not when another one does', async () => {
      const session = await connectedSession();
      sdk.lastStage.addVideoStream(fakeTrack('video'), 'camera-1');
      sdk.lastStage.participantLeft('someone-else');
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS);
      expect(session.getSnapshot()).toEqual(connected);
      sdk.lastStage.participantLeft('camera-1');
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS);
      expect(session.getSnapshot()).toEqual(waiting);
    });

    it('does not flash the notice when a new publisher takes over just as the old one goes', async () => {
      const session = await connectedSession();
      const old = sdk.lastStage.addVideoStream(fakeTrack('video'), 'camera-1');
      sdk.lastStage.addVideoStream(fakeTrack('video'), 'encoder-2');
      sdk.lastStage.removeStreams(old, 'camera-1');
      sdk.lastStage.participantLeft('camera-1');
      await vi.advanceTimersByTimeAsync(60_000);
      expect(session.getSnapshot()).toEqual(connected);
      expect(removals).toBe(0);
    });

    it('keeps no grace timer across a lost connection', async () => {
      const session = await connectedSession();
      sdk.lastStage.dropConnection();
      await vi.advanceTimersByTimeAsync(VIDEO_GRACE_MS * 2);
      expect(session.getSnapshot()).toMatchObject({ status: 'reconnecting' });
    });
  });
});
