/**
 * The Recordings page as the recordings specs drive it (docs/product.md#recordings): a span of an
 * aircraft played, a seek that waits for the frame there, and the time strip of the frame shown;
 * and the recorder process (local-stage/dist/recorder.js, decision 0072) run beside the suite's
 * shared product, which runs without one (RECORDING=off, so that other specs count only viewers).
 */
import type { Locator, Page } from '@playwright/test';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { startRecorderProcess, type RecorderProcess } from '@tailcam/harness/recorder-process';
import { expect } from './fixtures';
import { E2E_STAGE_PORT } from './environment';

/** The capture time in the time strip of the frame the recording's video shows now. */
export async function shownCaptureMs(page: Page): Promise<number | undefined> {
  await installPageKit(page);
  return page
    .getByTestId('recording-video')
    .evaluate(
      (video: HTMLVideoElement) => window.TailcamPageKit.frameStamp(video)?.captureTimeMs ?? null,
    )
    .then((value) => value ?? undefined);
}

/**
 * Seeks the recording to `seconds` and waits for `seeked` (at most 20 s) and the frame shown
 * there; fails with the video's state (buffered ranges, ready state) when it does not come.
 * Resolves with that frame's presentation time (s, `requestVideoFrameCallback`'s `mediaTime`).
 */
export async function seek(page: Page, seconds: number): Promise<number> {
  const outcome = await page.getByTestId('recording-video').evaluate(
    (video: HTMLVideoElement, to) =>
      new Promise<{ mediaTime: number } | { failed: string }>((resolve) => {
        const state = () =>
          JSON.stringify({
            to,
            currentTime: video.currentTime,
            readyState: video.readyState,
            buffered: Array.from({ length: video.buffered.length }, (_, index) => [
              video.buffered.start(index),
              video.buffered.end(index),
            ]),
          });
        setTimeout(() => resolve({ failed: `no 'seeked' in 20 s: ${state()}` }), 20_000);
        let seeked = false;
        let presented: number | undefined;
        const settle = () => {
          if (seeked && presented !== undefined) resolve({ mediaTime: presented });
        };
        // Before its metadata a video takes the time as where to start, and fires no `seeked`.
        const go = () => {
          video.addEventListener('seeked', () => ((seeked = true), settle()), { once: true });
          video.requestVideoFrameCallback((_, frame) => {
            presented = frame.mediaTime;
            settle();
          });
          video.currentTime = to;
        };
        if (video.readyState >= HTMLMediaElement.HAVE_METADATA) go();
        else video.addEventListener('loadedmetadata', go, { once: true });
      }),
    seconds,
  );
  if ('failed' in outcome) throw new Error(outcome.failed);
  return outcome.mediaTime;
}

/** The Play buttons of an aircraft's spans on the Recordings page. */
export function playButtons(page: Page, stageId: string): Locator {
  return page
    .locator(`section[aria-labelledby="rec-${stageId}"]`)
    .getByRole('button', { name: /^Play \d\d:\d\d:\d\d–\d\d:\d\d:\d\d UTC$/ });
}

/** The longest span listed for `stageId` (a layer switch or a key frame's wait may leave a short one). */
export async function longestSpan(
  page: Page,
  stageId: string,
): Promise<{ button: Locator; start: string; seconds: number }> {
  const play = playButtons(page, stageId);
  await expect(play.first()).toBeVisible();
  const spans = await Promise.all(
    (await play.all()).map(async (button) => {
      const label = (await button.getAttribute('aria-label')) ?? '';
      const [, start = '', end = ''] = /(\d\d:\d\d:\d\d)–(\d\d:\d\d:\d\d)/.exec(label) ?? [];
      const seconds =
        (Date.parse(`1970-01-01T${end}Z`) - Date.parse(`1970-01-01T${start}Z`)) / 1000;
      return { button, start, seconds };
    }),
  );
  const longest = spans.sort((a, b) => b.seconds - a.seconds)[0];
  if (!longest) throw new Error(`no span listed for ${stageId}`);
  return longest;
}

export interface SeekLanding {
  /** How far the frame shown is from the seek's target by its time strip, ms (signed). */
  offMs: number;
  /** How far the frame shown starts before the target on the recording's timeline, ms. */
  frameBeforeMs: number;
  /** Where the recording placed that frame, against its time strip, ms (signed). */
  timelineErrorMs: number;
}

/**
 * With a span playing: a seek to 0 shows the span's first frame, a seek to `seconds` the last
 * frame that starts by then. The recording's timeline is the publisher's clock, so that frame's
 * strip says `seconds` of capture later than the first's, less how far before the target the
 * frame starts (at most a frame interval: 33 ms at 30 fps, more where the publisher dropped
 * frames, as a starved synthetic camera does on a loaded machine).
 */
export async function seekLanding(page: Page, seconds: number): Promise<SeekLanding> {
  const firstAt = await seek(page, 0.01); // (not 0, where the video already is)
  await expect.poll(() => shownCaptureMs(page), { timeout: 15_000 }).toEqual(expect.any(Number));
  const first = (await shownCaptureMs(page)) ?? 0;
  const shownAt = await seek(page, seconds);
  await expect.poll(() => shownCaptureMs(page), { timeout: 15_000 }).not.toBe(first);
  const atSeek = (await shownCaptureMs(page)) ?? 0;
  const offMs = atSeek - first - seconds * 1000;
  return {
    offMs,
    frameBeforeMs: Math.round((seconds - shownAt) * 1000),
    timelineErrorMs: Math.round(atSeek - first - (shownAt - firstAt) * 1000),
  };
}

/**
 * Runs the recorder (what `npm start` runs) beside the suite's shared product, into its data
 * directory's recordings, where its API lists them, with segments of 1 s (or `segmentMs`).
 */
export function startRecorder(dataDir: string, segmentMs = 1000): Promise<RecorderProcess> {
  return startRecorderProcess({
    dataDir,
    stagePort: E2E_STAGE_PORT,
    env: { RECORDING_SEGMENT_MS: String(segmentMs) },
  });
}

export interface ListedSpan {
  startMs: number;
  endMs: number;
  segments: { offsetMs: number; durationMs: number; preview?: string }[];
}

/** The longest span the API lists for `stageId` (its start and end, Unix ms, and segments). */
export async function longestSpanTimes(
  page: Page,
  token: string,
  stageId: string,
): Promise<ListedSpan> {
  const response = await page.request.get('/api/recordings', {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(200);
  const body = (await response.json()) as {
    aircraft: { stageId: string; spans: ListedSpan[] }[];
  };
  const spans = body.aircraft.find((entry) => entry.stageId === stageId)?.spans ?? [];
  const longest = spans.sort((a, b) => b.endMs - b.startMs - (a.endMs - a.startMs))[0];
  if (!longest) throw new Error(`no span listed for ${stageId}`);
  return longest;
}

/**
 * A whole second a second or more into `span`, with 1.5 s of it after: in a segment with a
 * preview picture where one is (decision 0084: the recorder may skip one when busy).
 */
export function instantToPlay(span: ListedSpan): { atMs: number; preview: boolean } {
  const first = Math.ceil(span.startMs / 1000) * 1000 + 1000;
  const seconds = Array.from(
    { length: Math.max(0, Math.floor((span.endMs - 1500 - first) / 1000) + 1) },
    (_, index) => first + index * 1000,
  );
  const withPreview = seconds.find((ms) =>
    span.segments.some(
      (segment) =>
        segment.preview !== undefined &&
        span.startMs + segment.offsetMs <= ms &&
        ms < span.startMs + segment.offsetMs + segment.durationMs,
    ),
  );
  return withPreview === undefined
    ? { atMs: first, preview: false }
    : { atMs: withPreview, preview: true };
}

/** `2026-11-29T06:25:30Z`: an instant as the Recordings page's URL writes it. */
export function momentOf(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Waits until the recording's video plays from `offsetS` (s into its span): not paused, its time
 * moved on past the offset, and nothing played from before it (its `played` ranges start there).
 * Resolves with where its playback started.
 */
export async function expectPlayingFrom(page: Page, offsetS: number): Promise<number> {
  const video = page.getByTestId('recording-video');
  const state = () =>
    video.evaluate((v: HTMLVideoElement) => ({
      paused: v.paused,
      currentTime: v.currentTime,
      playedFrom: v.played.length > 0 ? v.played.start(0) : null,
    }));
  await expect
    .poll(
      async () => {
        const now = await state();
        return !now.paused && now.currentTime > offsetS + 0.2;
      },
      { message: `the recording playing on from ${offsetS} s`, timeout: 20_000 },
    )
    .toBe(true);
  const { playedFrom } = await state();
  expect(playedFrom, 'where playback started').not.toBeNull();
  expect(Math.abs((playedFrom ?? 0) - offsetS)).toBeLessThan(0.5);
  return playedFrom ?? 0;
}
