/**
 * Rewind in the live player (decision 0088), the Recordings timeline (decision 0086) and the disk
 * a recorded aircraft takes, on the bench's own instance with the recorder `npm start` runs
 * started beside it (its defaults: 4 s segments, previews when ffmpeg is there).
 *
 * - Disk: one page watches N743AS (the synthetic camera; the recorder records a camera while a
 *   person watches it, at its top layer) while a Chromium WHIP publisher sends grainy 1280x720
 *   H.264 to N954AS (a real encoder, always recorded); each aircraft's folder grows over
 *   DISK_WINDOW_MS, as bytes an hour. That watch is the person's before the presses (≥ 35 s).
 * - Presses: PRESSES × ('Rewind 30 seconds' → the recording's first frame presented; the
 *   scrubber to its right end, where the live picture's time strip minus the recording's is
 *   sampled; 'Go live' → the recording's video gone and the live video's next frame presented),
 *   timed in the page from the click (page/rewind-probe.ts).
 * - Timeline: a day of three aircraft on the Recordings page (lib/recordings-day.ts), from the
 *   segment and preview just recorded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import {
  serveCanvasPublisherPage,
  startCanvasPublisher,
  stopCanvasPublisher,
} from '@tailcam/harness/canvas-publisher';
import { loadAverage } from '@tailcam/harness/load-average';
import { bundleForPage } from '@tailcam/harness/page-scripts';
import { framesDecoded, playerVideo } from '@tailcam/harness/player';
import { pollUntil } from '@tailcam/harness/poll';
import { startRecorderProcess, type RecorderProcess } from '@tailcam/harness/recorder-process';
import { median, p95 } from '@tailcam/harness/stats';
import {
  parsePreviewFileName,
  parseSegmentFileName,
  parseSpanMeta,
  previewFileName,
  SPAN_META_FILE,
} from '@tailcam/protocol/recordings';
import { signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';
import {
  measureRecordingsDay,
  SEGMENT_MS,
  TIMELINE_HOURS,
  TIMELINE_ROUNDS,
} from '../lib/recordings-day';
import type { RewindMarks } from '../page/rewind-probe';

const WATCHED = 'N743AS';
const PUBLISHED = 'N954AS';
const DISK_WINDOW_MS = 60_000;
const PRESSES = 12;
/** Every wait of a press (a frame, a button) is bounded by this. */
const STEP_TIMEOUT_MS = 10_000;
/** All presses together stop after this, however many are done. */
const PRESSES_DEADLINE_MS = 240_000;
const GAP_SETTLE_MS = 1_000;
const GAP_SAMPLES = 15;
const GAP_EVERY_MS = 200;
const LIVE_BETWEEN_MS = 1_500;

interface Bytes {
  segments: number;
  previews: number;
  other: number;
}

/** Bytes under `dir` by kind: segments (finished and being written), previews, the rest. */
function bytesUnder(dir: string, into: Bytes = { segments: 0, previews: 0, other: 0 }): Bytes {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return into;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytesUnder(path, into);
    else if (entry.isFile()) {
      const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      if (/\.(webm|mp4|part)$/.test(entry.name)) into.segments += size;
      else if (entry.name.endsWith('.jpg')) into.previews += size;
      else into.other += size;
    }
  }
  return into;
}

const total = (bytes: Bytes) => bytes.segments + bytes.previews + bytes.other;
const mibPerHour = (bytes: number) => ((bytes / (DISK_WINDOW_MS / 1000)) * 3600) / 2 ** 20;

/** A finished segment of `stageId` that has a preview, the newest; with its span's meta. */
function realSegment(recordings: string, stageId: string) {
  const stageDir = join(recordings, stageId);
  for (const span of readdirSync(stageDir).sort().reverse()) {
    const spanDir = join(stageDir, span);
    const names = readdirSync(spanDir);
    const metaFile = join(spanDir, SPAN_META_FILE);
    const meta = existsSync(metaFile) ? parseSpanMeta(readFileSync(metaFile, 'utf8')) : undefined;
    // A whole segment (the last one of a stopped recorder is cut short).
    const finished = names
      .filter((name) => (parseSegmentFileName(name)?.durationMs ?? 0) >= SEGMENT_MS - 500)
      .filter((name) => names.includes(previewFileName(name)) || !names.some(isPreview))
      .sort()
      .reverse();
    const name = finished[0];
    if (meta && name) {
      const preview = names.includes(previewFileName(name)) ? previewFileName(name) : undefined;
      return {
        meta,
        segmentFile: join(spanDir, name),
        previewFile: preview && join(spanDir, preview),
      };
    }
  }
  throw new Error(`no finished segment of ${stageId} to copy`);
}
const isPreview = (name: string) => parsePreviewFileName(name) !== undefined;

/** The codec and picture size of a recorded file, by ffprobe (FFPROBE_PATH); '?' without it. */
function videoOf(file: string): string {
  try {
    return execFileSync(
      process.env.FFPROBE_PATH ?? 'ffprobe',
      [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=codec_name,width,height',
        '-of',
        'csv=p=0',
        file,
      ],
      { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] },
    )
      .trim()
      .replace(/,/g, ' ');
  } catch {
    return '?';
  }
}

const readMarks = (page: Page): Promise<RewindMarks> => page.evaluate(() => window.__rewind);

/** Waits until `probe` in the page is true (bounded). */
const waitInPage = (page: Page, probe: () => boolean) =>
  page.waitForFunction(probe, undefined, { timeout: STEP_TIMEOUT_MS });

const msRow = (values: number[]) => ({
  median: `${round(median(values))} ms`,
  p95: `${round(p95(values))} ms`,
});

interface Disk {
  watched: Bytes;
  published: Bytes;
  watchedVideo: string;
  publishedVideo: string;
  load: string;
}

/** The watch before the presses: N743AS watched and N954AS published for DISK_WINDOW_MS. */
async function recordBoth(bench: BenchContext, page: Page, recordings: string): Promise<Disk> {
  const served = await serveCanvasPublisherPage();
  const context = await bench.browser.newContext();
  const publisher = await context.newPage();
  try {
    await publisher.goto(served.url);
    await startCanvasPublisher(publisher, {
      ...bench.product.publishToken(PUBLISHED),
      width: 1280,
      height: 720,
      grain: true,
      holdResolution: true,
      videoCodec: 'H264',
    });
    const both = () =>
      total(bytesUnder(join(recordings, WATCHED))) > 0 &&
      total(bytesUnder(join(recordings, PUBLISHED))) > 0;
    if (!(await pollUntil(both, 30_000))) throw new Error('the recorder wrote nothing in 30 s');
    const load = loadAverage();
    const before = [bytesUnder(join(recordings, WATCHED)), bytesUnder(join(recordings, PUBLISHED))];
    await page.waitForTimeout(DISK_WINDOW_MS);
    const after = [bytesUnder(join(recordings, WATCHED)), bytesUnder(join(recordings, PUBLISHED))];
    const grown = (index: number): Bytes => ({
      segments: after[index]!.segments - before[index]!.segments,
      previews: after[index]!.previews - before[index]!.previews,
      other: after[index]!.other - before[index]!.other,
    });
    return {
      watched: grown(0),
      published: grown(1),
      watchedVideo: videoOf(realSegment(recordings, WATCHED).segmentFile),
      publishedVideo: videoOf(realSegment(recordings, PUBLISHED).segmentFile),
      load: `${load} → ${loadAverage()}`,
    };
  } finally {
    await stopCanvasPublisher(publisher).catch(() => undefined);
    await context.close();
    await served.close();
  }
}

interface Presses {
  rewindMs: number[];
  wentBackMs: number[];
  goLiveMs: number[];
  removedMs: number[];
  gapMs: number[];
  /** Each press's first sample: where the scrubber's right end landed, before any stall. */
  landedGapMs: number[];
  failures: string[];
  load: string;
}

async function press(page: Page, presses: Presses): Promise<void> {
  await page.getByRole('button', { name: 'Rewind 30 seconds' }).click({ timeout: STEP_TIMEOUT_MS });
  await waitInPage(page, () => window.__rewind.recordingFrameAt !== undefined);
  const back = await readMarks(page);
  presses.rewindMs.push((back.recordingFrameAt ?? NaN) - (back.clickAt ?? NaN));
  if (back.recordingBehindMs !== undefined) presses.wentBackMs.push(back.recordingBehindMs);

  // The scrubber at its right end: the newest playable instant.
  const scrubber = page.getByRole('slider', { name: `The last hour of ${WATCHED}` });
  await scrubber.fill((await scrubber.getAttribute('max')) ?? '0', { timeout: STEP_TIMEOUT_MS });
  await page.waitForTimeout(GAP_SETTLE_MS);
  for (let sample = 0; sample < GAP_SAMPLES; sample += 1) {
    const gap = await page.evaluate(() => window.__rewindGap() ?? null);
    if (gap !== null) presses.gapMs.push(gap);
    if (gap !== null && sample === 0) presses.landedGapMs.push(gap);
    await page.waitForTimeout(GAP_EVERY_MS);
  }

  await page.getByRole('button', { name: 'Go live' }).click({ timeout: STEP_TIMEOUT_MS });
  await waitInPage(page, () => window.__rewind.liveFrameAt !== undefined);
  const live = await readMarks(page);
  presses.goLiveMs.push((live.liveFrameAt ?? NaN) - (live.clickAt ?? NaN));
  presses.removedMs.push((live.removedAt ?? NaN) - (live.clickAt ?? NaN));
}

async function pressAll(page: Page): Promise<Presses> {
  const presses: Presses = {
    rewindMs: [],
    wentBackMs: [],
    goLiveMs: [],
    removedMs: [],
    gapMs: [],
    landedGapMs: [],
    failures: [],
    load: loadAverage(),
  };
  const deadline = Date.now() + PRESSES_DEADLINE_MS;
  for (let index = 0; index < PRESSES && Date.now() < deadline; index += 1) {
    try {
      await press(page, presses);
      console.log(
        `[bench] rewind press ${index + 1}: first picture ${round(presses.rewindMs.at(-1) ?? NaN)} ms, ` +
          `Go live ${round(presses.goLiveMs.at(-1) ?? NaN)} ms; load ${loadAverage()}`,
      );
    } catch (error) {
      presses.failures.push(error instanceof Error ? (error.message.split('\n')[0] ?? '') : '?');
      const goLive = page.getByRole('button', { name: 'Go live' });
      if (await goLive.isVisible()) await goLive.click({ timeout: STEP_TIMEOUT_MS });
    }
    await page.waitForTimeout(LIVE_BETWEEN_MS);
  }
  presses.load = `${presses.load} → ${loadAverage()}`;
  return presses;
}

export async function runRewind(bench: BenchContext): Promise<BenchRow[]> {
  const stagePort = bench.product.options.stagePort;
  if (stagePort === undefined) throw new Error('the rewind part needs a local stage');
  const recordings = join(bench.product.dataDir, 'recordings');
  const partStarted = Date.now();
  let recorder: RecorderProcess | undefined;
  let disk: Disk;
  let presses: Presses;
  const context = await signedInContext(bench);
  try {
    recorder = await startRecorderProcess({ dataDir: bench.product.dataDir, stagePort });
    await context.addInitScript({ content: await bundleForPage('bench/page/rewind-probe.ts') });
    const page = await context.newPage();
    await page.goto(`/player/${WATCHED}`);
    if (!(await pollUntil(async () => (await framesDecoded(playerVideo(page))) > 5, 20_000))) {
      throw new Error(`${WATCHED} did not play`);
    }
    const watchedFrom = Date.now();
    disk = await recordBoth(bench, page, recordings);
    console.log(
      `[bench] rewind: watched ${WATCHED} for ${round((Date.now() - watchedFrom) / 1000)} s; pressing`,
    );
    presses = await pressAll(page);
  } finally {
    await context.close();
    await recorder?.stop();
  }
  const day = await measureRecordingsDay(bench, realSegment(recordings, WATCHED));
  const seconds = round((Date.now() - partStarted) / 1000);
  const failures = presses.failures.length
    ? `; ${presses.failures.length} press(es) failed: ${presses.failures.join(' | ')}`
    : '';
  const n = presses.rewindMs.length;
  const perHour = (bytes: Bytes) =>
    `${round(mibPerHour(total(bytes)))} MiB (segments ${round(mibPerHour(bytes.segments))}, previews ${round(mibPerHour(bytes.previews), 1)}, index ${round(mibPerHour(bytes.other), 2)}); ${round((total(bytes) * 8) / (DISK_WINDOW_MS / 1000) / 1000)} kbit/s`;
  return [
    {
      part: 'rewind',
      what: "'Rewind 30 seconds' → the recording's first frame presented",
      target: '≤ 500 ms',
      ...msRow(presses.rewindMs),
      pass: n >= 10 && median(presses.rewindMs) <= 500,
      note: `n = ${n} presses after ${round(DISK_WINDOW_MS / 1000)}+ s watching ${WATCHED}; the first frame ${round(median(presses.wentBackMs) / 1000, 1)} s behind the wall clock (median)${failures}; load ${presses.load}`,
    },
    {
      part: 'rewind',
      what: "'Go live' → the recording gone and the live video's next frame presented",
      target: '≤ 300 ms',
      ...msRow(presses.goLiveMs),
      pass: presses.goLiveMs.length >= 10 && median(presses.goLiveMs) <= 300,
      note: `n = ${presses.goLiveMs.length}; the recording's video removed ${round(median(presses.removedMs))} ms (p95 ${round(p95(presses.removedMs))}) after the click; load ${presses.load}`,
    },
    {
      part: 'rewind',
      what: 'the scrubber at its right end: live picture − recorded picture, by their time strips',
      target: '≤ 2,000 ms',
      ...msRow(presses.gapMs),
      pass: presses.gapMs.length >= 50 && median(presses.gapMs) <= 2000,
      note: `n = ${presses.gapMs.length} samples (${GAP_SAMPLES} a press, every ${GAP_EVERY_MS} ms from ${GAP_SETTLE_MS} ms after the fill); each press's first sample (where it landed) ${round(median(presses.landedGapMs))} ms median; min ${round(Math.min(...presses.gapMs))}, max ${round(Math.max(...presses.gapMs))} ms; load ${presses.load}`,
    },
    {
      part: 'rewind',
      what: `disk per hour, ${WATCHED} watched (synthetic camera, its top layer)`,
      target: 'reported',
      median: `${round(mibPerHour(total(disk.watched)))} MiB`,
      p95: '–',
      pass: total(disk.watched) > 0,
      note: `${perHour(disk.watched)}; over ${DISK_WINDOW_MS / 1000} s; recorded ${disk.watchedVideo}; load ${disk.load}`,
    },
    {
      part: 'rewind',
      what: `disk per hour, ${PUBLISHED} from a Chromium WHIP publisher (H.264, grainy 1280x720 held)`,
      target: 'reported',
      median: `${round(mibPerHour(total(disk.published)))} MiB`,
      p95: '–',
      pass: total(disk.published) > 0,
      note: `${perHour(disk.published)}; the same ${DISK_WINDOW_MS / 1000} s; recorded ${disk.publishedVideo}; load ${disk.load}`,
    },
    {
      part: 'rewind',
      what: `GET /api/recordings, ${TIMELINE_HOURS} h × 3 aircraft of ${SEGMENT_MS / 1000} s segments (first call, from Node)`,
      target: 'reported',
      median: `${round(day.coldMs)} ms`,
      p95: '–',
      pass: undefined,
      note: `${day.segmentsListed} segments listed (each with its preview): ${round(day.bodyBytes / 2 ** 20, 2)} MiB of JSON, ${round(day.gzipBytes / 2 ** 20, 2)} MiB gzipped (the API sends it uncompressed); load ${day.load}`,
    },
    {
      part: 'rewind',
      what: `/recordings with that day: navigation → three timelines drawn (median of ${TIMELINE_ROUNDS})`,
      target: 'reported',
      ...msRow(day.drawnMs),
      pass: day.drawnMs.length === TIMELINE_ROUNDS,
      note: `all (ms): ${day.drawnMs.map((ms) => round(ms)).join(', ')}; the list's request → response end ${round(median(day.listMs))} ms (median), done ${round(median(day.listEndMs))} ms after navigation; load ${day.load}; the part took ${seconds} s`,
    },
  ];
}
