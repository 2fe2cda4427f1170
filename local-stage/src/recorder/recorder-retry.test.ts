/**
 * The recorder's retries (decision 0072, 0078), on vitest's clock: a recording the stage refuses
 * to start is tried again at the recorder's next look at who is on air, `pollMs` after the last
 * look (at once when the start failed while the next question was already held), until one
 * starts; then nothing more is asked until something changes. A recording that ends is started
 * again at once. Stopping the recorder cancels a retry that waits, and keeps nothing a start
 * still under way brings. The stage's on-air long poll and the WHEP sessions are stand-ins that
 * answer as the stage would (the real ones: recorder.test.ts, on-air-door.test.ts); retention is
 * the real one, on an empty directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStageLogger } from '../stage-log';
import { Recorder } from './recorder';
import { testRecorderOptions } from '../testing/test-recorder';

const fake = vi.hoisted(() => {
  interface Attempt {
    stageId: string;
    atMs: number;
    closed: boolean;
    /** Ends the session as a lost connection would (WhepRecording's onEnded). */
    end: () => void;
  }
  /** How each start turns out, in order: after `afterMs`, refused or started. */
  const outcomes: { refused: boolean; afterMs: number }[] = [];
  const attempts: Attempt[] = [];
  /** Every question to the stage: its path and query. */
  const asked: string[] = [];
  const onAir = {
    version: 1,
    publishers: { N743AS: 'encoder', N953AS: 'none', N954AS: 'none' } as Record<string, string>,
    watched: {},
  };
  return { outcomes, attempts, asked, onAir };
});

// The stage's long poll: answered at once without `since`, else held until let go (nothing
// changes on air in these tests).
vi.mock('@tailcam/protocol/loopback-json', () => ({
  loopbackJson: (url: string, options: { signal?: AbortSignal }) => {
    const { pathname, search } = new URL(url);
    fake.asked.push(`${pathname}${search}`);
    const signal = options.signal;
    const aborted = () => new Error('This operation was aborted');
    if (signal?.aborted) return Promise.reject(aborted());
    if (!search.includes('since=')) return Promise.resolve(structuredClone(fake.onAir));
    return new Promise((_resolve, reject) => {
      signal?.addEventListener('abort', () => reject(aborted()));
    });
  },
}));

// A WHEP session that the stage refuses or admits, as each test scripts it.
vi.mock('./whep-recording', () => ({
  WhepRecording: class {
    private readonly attempt;
    constructor(options: { stageId: string; onEnded: () => void }) {
      this.attempt = {
        stageId: options.stageId,
        atMs: Date.now(),
        closed: false,
        end: () => options.onEnded(),
      };
      fake.attempts.push(this.attempt);
    }

    start(): Promise<void> {
      const outcome = fake.outcomes.shift() ?? { refused: false, afterMs: 0 };
      if (outcome.afterMs === 0) {
        return outcome.refused
          ? Promise.reject(new Error('WHEP 503: {"error":"busy"}'))
          : Promise.resolve();
      }
      return new Promise((resolve, reject) => {
        setTimeout(() => {
          if (outcome.refused) reject(new Error('WHEP 503: {"error":"busy"}'));
          else resolve();
        }, outcome.afterMs);
      });
    }

    close(): Promise<void> {
      this.attempt.closed = true;
      return Promise.resolve();
    }

    write(): void {
      // Whether frames are written is recording-what-a-person-watches.test.ts's.
    }
  },
}));

const POLL_MS = 1_000;
/** "At once": Node's shortest timer is 1 ms. */
const AT_ONCE_MS = 5;
let root: string;
let recorder: Recorder;
let warnings: string[];

beforeEach(async () => {
  vi.useFakeTimers({ now: 0 });
  fake.outcomes.length = 0;
  fake.attempts.length = 0;
  fake.asked.length = 0;
  warnings = [];
  root = mkdtempSync(join(tmpdir(), 'tailcam-recorder-retry-'));
  recorder = new Recorder(
    testRecorderOptions({
      stageUrl: 'http://127.0.0.1:9',
      secret: new Uint8Array(32),
      root,
      mode: 'encoders',
      pollMs: POLL_MS,
      log: createStageLogger({
        level: 'warn',
        format: 'json',
        destination: {
          write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg),
        },
      }),
    }),
  );
});

afterEach(async () => {
  await recorder.close();
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

/** Starts the recorder and lets its first look and start happen. */
async function start(): Promise<void> {
  await recorder.start();
  await vi.advanceTimersByTimeAsync(0);
}

const attemptTimes = () => fake.attempts.map((attempt) => attempt.atMs);

describe("the recorder's retries", () => {
  it('tries a refused start again at its next look, pollMs later, until one starts; then asks nothing more', async () => {
    fake.outcomes.push({ refused: true, afterMs: 0 }, { refused: true, afterMs: 0 });
    await start();
    expect(attemptTimes()).toEqual([0]);
    expect(recorder.recording()).toEqual({});

    await vi.advanceTimersByTimeAsync(POLL_MS - 1);
    expect(attemptTimes()).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(attemptTimes()).toEqual([0, 1_000]);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(attemptTimes()).toEqual([0, 1_000, 2_000]);
    expect(recorder.recording()).toEqual({ N743AS: 'encoder' });
    // Refused twice for the same reason: said once (it is tried again every second).
    expect(warnings).toEqual([
      'recording N743AS: the stage refused (WHEP 503: {"error":"busy"}); trying again',
    ]);

    // Recording: a minute later it has started nothing more, and its one question is held.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(attemptTimes()).toEqual([0, 1_000, 2_000]);
    expect(fake.asked).toEqual([
      '/_control/on-air',
      '/_control/on-air',
      '/_control/on-air',
      '/_control/on-air?since=1&wait=50',
    ]);
  });

  it('tries again at once when the start fails while its next question is held', async () => {
    // The stage takes 4 s to refuse (a WHEP answer that is slow to come).
    fake.outcomes.push({ refused: true, afterMs: 4_000 });
    await start();
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(fake.asked).toEqual(['/_control/on-air', '/_control/on-air?since=1&wait=50']);
    await vi.advanceTimersByTimeAsync(3_000 - 1);
    expect(attemptTimes()).toEqual([0]);
    // Refused at 4 s: the held question is let go, and the next look and start come at once.
    await vi.advanceTimersByTimeAsync(1 + AT_ONCE_MS);
    expect(attemptTimes()).toHaveLength(2);
    expect(attemptTimes()[1]).toBeGreaterThanOrEqual(4_000);
    expect(attemptTimes()[1]).toBeLessThanOrEqual(4_000 + AT_ONCE_MS);
    expect(recorder.recording()).toEqual({ N743AS: 'encoder' });
  });

  it('starts a recording that ended again at once', async () => {
    await start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(attemptTimes()).toEqual([0]);
    expect(recorder.recording()).toEqual({ N743AS: 'encoder' });
    fake.attempts[0]?.end();
    await vi.advanceTimersByTimeAsync(AT_ONCE_MS);
    expect(attemptTimes()).toHaveLength(2);
    expect(attemptTimes()[1]).toBeLessThanOrEqual(5_000 + AT_ONCE_MS);
    expect(recorder.recording()).toEqual({ N743AS: 'encoder' });
  });

  it('cancels the retry that waits when the recorder stops', async () => {
    fake.outcomes.push({ refused: true, afterMs: 0 });
    await start();
    await vi.advanceTimersByTimeAsync(POLL_MS / 2);
    await recorder.close();
    // No look, no start, no timer left to wake the process.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * POLL_MS);
    expect(attemptTimes()).toEqual([0]);
    expect(fake.asked).toEqual(['/_control/on-air']);
  });

  it('keeps nothing a start under way brings once the recorder stops, and tries nothing again', async () => {
    fake.outcomes.push({ refused: false, afterMs: 2_000 });
    await start();
    await vi.advanceTimersByTimeAsync(POLL_MS / 2);
    const closing = recorder.close();
    await vi.advanceTimersByTimeAsync(2_000);
    await closing;
    expect(recorder.recording()).toEqual({});
    expect(fake.attempts.map((attempt) => attempt.closed)).toEqual([true]);
    await vi.advanceTimersByTimeAsync(10 * POLL_MS);
    expect(attemptTimes()).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
