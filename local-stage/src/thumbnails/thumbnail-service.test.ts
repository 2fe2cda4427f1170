/**
 * The thumbnail service against the real stage and a synthetic camera (VP8 from libwebrtc),
 * decoded by the system's ffmpeg: a picture of the aircraft's present, read from its time strip,
 * and the camera idle again once nobody asks. Skipped, saying so, where ffmpeg is missing.
 *
 * Where the service's rules wait for time itself (a picture's 3 s of freshness, the page's 10 s
 * refresh, a stale bound), the services' clock is moved forward rather than waited for.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { publishNoiseOn, type NoisePublisher } from '../testing/noise-publisher';
import { startStageWithCameras, type StageWithCameras } from '../testing/stage-with-cameras';
import { waitUntil } from '../testing/wait-until';
import { decodeTimeStrip } from '../time-strip';
import { silentLogger } from '../stage-log';
import { AircraftFeed, type ReceivedKeyFrame } from './aircraft-feed';
import { startThumbnailService, type ThumbnailService } from './thumbnail-service';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
if (!hasFfmpeg) console.warn('[thumbnails] ffmpeg is not installed: its tests are skipped');

const secret = new TextEncoder().encode('a-thumbnail-service-test-secret-of-enough-length');
const STAGE = 'N953AS';
/** The services' clock: real time, plus what the tests moved it forward by. */
const clock = {
  movedMs: 0,
  now: () => Date.now() + clock.movedMs,
  move(ms: number) {
    clock.movedMs += Math.max(0, ms);
  },
};
let running: StageWithCameras;
let service: ThumbnailService;

beforeAll(async () => {
  if (!hasFfmpeg) return;
  running = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: [STAGE],
    camera: { width: 640, height: 360, fps: 30, idleMs: 500 },
  });
  service = startThumbnailService({
    stageUrl: running.url,
    secret,
    stageIds: [STAGE],
    log: silentLogger(),
    // A picture a few seconds apart without waiting the page's 10 s.
    keyFrameIntervalMs: 3_000,
    now: clock.now,
  });
}, 30_000);

afterAll(async () => {
  service?.close();
  await running?.close();
});

async function readStrip(jpeg: Buffer) {
  const image = await loadImage(jpeg);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return {
    width: image.width,
    height: image.height,
    strip: decodeTimeStrip(context.getImageData(0, 0, image.width, image.height)),
  };
}

describe.skipIf(!hasFfmpeg)('thumbnails of a synthetic camera', () => {
  it('gives a picture of what the camera draws now, at its size, and counts apart from viewers', async () => {
    expect(running.stage.stats().stages[STAGE]?.camera.state).toBe('idle');
    const asked = Date.now();
    const jpeg = await service.thumbnail(STAGE);
    expect(jpeg, 'a picture on the first request').toBeDefined();
    const { width, height, strip } = await readStrip(jpeg as Buffer);
    expect({ width, height }).toEqual({ width: 640, height: 360 });
    expect(strip?.streamIndex).toBe(STREAM_IDS.indexOf(STAGE));
    // Drawn after the request (the camera was idle) and well before now.
    expect(strip?.captureTimeMs).toBeGreaterThanOrEqual(asked - 100);
    expect(Date.now() - (strip?.captureTimeMs ?? 0)).toBeLessThan(5_000);
    expect(running.stage.stats()).toMatchObject({
      thumbnailSessions: 1,
      whepSessions: 0,
      peerConnections: 0,
    });
  });

  it('gives a newer picture a moment later, decoding one key frame per picture', async () => {
    const first = await readStrip((await service.thumbnail(STAGE)) as Buffer);
    const decodes = service.stats().decodes;
    // The picture older than its 3 s of freshness.
    clock.move(3_200);
    const second = await readStrip((await service.thumbnail(STAGE)) as Buffer);
    expect(second.strip?.frame).not.toBe(first.strip?.frame);
    expect(second.strip?.captureTimeMs).toBeGreaterThan(first.strip?.captureTimeMs ?? 0);
    expect(service.stats().decodes).toBe(decodes + 1);
  });

  it('stops watching when closed, and the camera goes idle', async () => {
    service.close();
    await waitUntil(
      () => running.stage.stats().stages[STAGE]?.camera.state === 'idle',
      'the camera idle',
      5_000,
    );
    expect(running.stage.stats().thumbnailSessions).toBe(0);
  });

  it('refuses an aircraft it does not serve', async () => {
    await expect(service.thumbnail('N000XX')).rejects.toThrow('No aircraft N000XX');
  });
});

/**
 * A camera that wakes slowly, as on a busy machine: every key frame of the first WAKE_MS of a
 * session is hidden from the service (the real stage and camera send them; the service sees none).
 */
const WAKE_MS = 5_000;
class SlowWakingFeed extends AircraftFeed {
  private awakeAt = 0;

  override start(): void {
    if (!this.watching) this.awakeAt = this.now() + WAKE_MS;
    super.start();
  }

  override get newestKeyFrame(): ReceivedKeyFrame | undefined {
    const newest = super.newestKeyFrame;
    return newest && newest.receivedAtMs >= this.awakeAt ? newest : undefined;
  }

  override keyFrameAfter(afterMs: number, timeoutMs: number) {
    return super.keyFrameAfter(Math.max(afterMs, this.awakeAt), timeoutMs);
  }
}

/** A service whose cameras wake slowly; its first picture taken, then its session ended. */
async function slowService(staleMs?: number): Promise<ThumbnailService> {
  const slow = startThumbnailService({
    stageUrl: running.url,
    secret,
    stageIds: [STAGE],
    log: silentLogger(),
    now: clock.now,
    feed: (options) => new SlowWakingFeed(options),
    ...(staleMs === undefined ? {} : { staleMs }),
    // Each ask below comes after the interval, so that it wakes the camera again.
    keyFrameIntervalMs: 1_000,
    // The real waits (an ask's for its key frame, a session's after its last ask) a quarter of
    // the service's: what they bound is the same, in seconds of the suite fewer.
    keyFrameWaitMs: 1_000,
    demandMs: 1_000,
  });
  // The first picture without waiting for the camera's wake: the clock moves past it once the
  // session is open (after the request's question to the stage of who is on air).
  const first = slow.thumbnail(STAGE);
  await waitUntil(() => slow.stats().watching.length === 1, 'the session open', 5_000, 5);
  clock.move(WAKE_MS);
  expect(await first, 'a first picture').toBeDefined();
  await waitUntil(() => slow.stats().watching.length === 0, 'the session ended', 10_000, 100);
  return slow;
}

describe.skipIf(!hasFfmpeg)('thumbnails of a camera slow to wake', () => {
  const services: ThumbnailService[] = [];
  afterAll(() => services.forEach((service) => service.close()));

  it("decodes the key frame that came too late for its request, and the page's next request has it", async () => {
    const slow = await slowService();
    services.push(slow);
    const asked = Date.now();
    const askedOnClock = clock.now();
    const decodes = slow.stats().decodes;
    const first = await slow.thumbnail(STAGE);
    expect(first, 'the last picture while the camera wakes').toBeDefined();
    expect((await readStrip(first as Buffer)).strip?.captureTimeMs).toBeLessThan(asked);
    // Its key frame comes after the answer (the camera wakes in 5 s) and is decoded then: had
    // the session ended at its demand time after the answer, nothing would be, and the page's
    // next request would find the camera waking again.
    await waitUntil(() => slow.stats().decodes > decodes, 'the late key frame', 15_000, 100);
    // The page asks again 10 s after its first request.
    clock.move(askedOnClock + 10_000 - clock.now());
    const next = await slow.thumbnail(STAGE);
    expect((await readStrip(next as Buffer)).strip?.captureTimeMs).toBeGreaterThan(asked);
  }, 40_000);

  it('gives no picture older than its bound while the camera wakes again', async () => {
    const slow = await slowService(2_000);
    services.push(slow);
    clock.move(2_000);
    expect(await slow.thumbnail(STAGE)).toBeUndefined();
  }, 40_000);
});

/** A feed that counts the key frames it forces: sessions opened and PLIs. */
class CountingFeed extends AircraftFeed {
  forced = 0;

  override start(): void {
    if (!this.watching) this.forced += 1;
    super.start();
  }

  override requestKeyFrame(): void {
    this.forced += 1;
    super.requestKeyFrame();
  }
}

describe.skipIf(!hasFfmpeg)('thumbnails asked by many', () => {
  it('answers thirty asks at once with one picture, and forces no key frame again within the interval however many ask', async () => {
    const feeds: CountingFeed[] = [];
    const many = startThumbnailService({
      stageUrl: running.url,
      secret,
      stageIds: [STAGE],
      log: silentLogger(),
      now: clock.now,
      feed: (options) => {
        const feed = new CountingFeed(options);
        feeds.push(feed);
        return feed;
      },
    });
    try {
      const answers = await Promise.all(Array.from({ length: 30 }, () => many.thumbnail(STAGE)));
      expect(answers[0], 'a picture').toBeDefined();
      for (const answer of answers) expect(answer).toBe(answers[0]);
      expect(many.stats().decodes).toBe(1);
      const forcedForIt = feeds[0]?.forced ?? 0;

      // Thirty more at each of 4 s and 9 s later, past FRESH_MS (pages out of step with each
      // other): the same picture at once, and nothing forced. Only the clock moves.
      const asked = clock.now();
      const later: Promise<Buffer | undefined>[] = [];
      for (const afterMs of [4_000, 9_000]) {
        clock.move(asked + afterMs - clock.now());
        for (let ask = 0; ask < 30; ask += 1) later.push(many.thumbnail(STAGE));
      }
      expect(feeds[0]?.forced).toBe(forcedForIt);
      for (const answer of await Promise.all(later)) expect(answer).toBe(answers[0]);
      expect(many.stats().decodes).toBe(1);
    } finally {
      many.close();
    }
  });
});

describe.skipIf(!hasFfmpeg)('thumbnails of an aircraft an encoder takes over', () => {
  it("gives the encoder's picture at the next ask, not the camera's of a moment before", async () => {
    const takeover = startThumbnailService({
      stageUrl: running.url,
      secret,
      stageIds: [STAGE],
      log: silentLogger(),
      now: clock.now,
      // Its session ends 1 s after the ask, not 4: the encoder takes over between two sessions,
      // as between a page's asks (one open meanwhile is ended by the stage, and seen to end later).
      demandMs: 1_000,
    });
    let encoder: NoisePublisher | undefined;
    try {
      const camera = await readStrip((await takeover.thumbnail(STAGE)) as Buffer);
      expect(camera.strip?.streamIndex, 'the camera on air first').toBe(STREAM_IDS.indexOf(STAGE));
      await waitUntil(() => takeover.stats().watching.length === 0, 'the session ended', 5_000, 50);
      encoder = await publishNoiseOn({
        secret,
        stageUrl: running.url,
        stageId: STAGE,
        width: 320,
        height: 180,
        fps: 15,
      });
      await waitUntil(
        () => running.stage.health().publishers[STAGE] === 'encoder',
        'the encoder on air',
        15_000,
      );
      // Well within the page's 10 s of the camera's picture, which the 10 s rule alone gives again.
      const next = await readStrip((await takeover.thumbnail(STAGE)) as Buffer);
      expect({ width: next.width, height: next.height }).toEqual({ width: 320, height: 180 });
    } finally {
      // The last test of the file: the stage closes after it, with no need of its camera again.
      await encoder?.close();
      takeover.close();
    }
  }, 40_000);
});
