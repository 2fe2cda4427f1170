/**
 * Side by side with Janus (`npm run bench -- --peer=janus`): Debian's Janus 1.1 with its
 * streaming plugin, fed by GStreamer (bench/lib/janus.ts, janus-feed.ts), and our local stage,
 * measured in the same run with the same Chromium:
 * - idle: each server's process with nobody watching, over the same 30 s window (ours: every
 *   process of the product, as the idle part; Janus: its process, the feed reported apart);
 * - session → first frame and glass to glass (janus-sessions.ts): passes of rounds that alternate
 *   which server goes first, without and with `--load=N` added, a fresh page per session: ours
 *   `new Stage()` … `join()` … first frame presented, Janus `new Janus()` … attach … `watch` …
 *   `start` … first frame presented (requestVideoFrameCallback); then, in the first pass, the time
 *   strip of every other frame for 2 s (the g2g part's method);
 * - CPU per viewer: receive-only viewers (bench/lib/receive-only-viewers.ts: real WebRTC endpoints
 *   whose frames are dropped before the decoder), 25 a page, at 1 / 25 / 50 / 100 viewers, each level held --hold seconds once every viewer
 *   receives, the server process's CPU read from /proc; passes alternate which server goes first.
 *   Ours is counted at full frame rate from the stage's own count of the frames it sent each
 *   viewer (/_stats), against the camera's highest layer; Janus's from its viewers' pages.
 *   The bench's instance runs with STAGE_MAX_SESSIONS=200 (bench/run.ts), so ours reaches 100 too.
 */
import type { BenchContext } from '../lib/context';
import { addLoad } from '../lib/added-load';
import { JANUS_JS, JanusServer } from '../lib/janus';
import type { ServerKind } from '../lib/receive-only-viewers';
import type { BenchRow } from '../lib/result';
import { untilIdleAndAsleep } from './idle';
import { median } from '@tailcam/harness/stats';
import { round } from '../lib/stats';
import {
  Comparison,
  coresOver,
  percent,
  sleep,
  viewerLevels,
  waitForQuiet,
  type Level,
} from './janus-comparison';
import { sessionPasses, sessionRows } from './janus-sessions';
import { keyFrameRow } from './keyframes';

const IDLE_WINDOW_MS = 30_000;
const FULL_RATE_FPS = 27;
/** Full frame rate counted at the stage: each viewer is sent this share of the camera's frames. */
const FULL_RATE_SHARE = 0.95;
/** At most this share of a level's viewers below the top layer (a starved page or two of 100). */
const MAX_BELOW_TOP_SHARE = 0.05;

/** Least-squares slope of cores against viewers. */
function slope(levels: Level[]): number {
  const n = levels.length;
  if (n < 2) return Number.NaN;
  const mx = levels.reduce((s, l) => s + l.viewers, 0) / n;
  const my = levels.reduce((s, l) => s + l.cores, 0) / n;
  const sxy = levels.reduce((s, l) => s + (l.viewers - mx) * (l.cores - my), 0);
  const sxx = levels.reduce((s, l) => s + (l.viewers - mx) ** 2, 0);
  return sxy / sxx;
}

/**
 * Marginal CPU per viewer from 1 to `at` viewers (undefined when that level was not reached, or
 * our camera was not at its full frame rate at either end).
 */
function perViewerAt(levels: Level[], at: number): number | undefined {
  const first = levels.find((l) => l.viewers === 1);
  const level = levels.find((l) => l.viewers === at);
  if (!first || !level || !cameraAtRate(first) || !cameraAtRate(level)) return undefined;
  return (level.cores - first.cores) / (at - 1);
}

/**
 * Idle: each server's process with nobody watching, over the same window, once our cameras sleep
 * (as the idle part: nobody watching for a minute); ours is every process of the product.
 */
async function idleRow(bench: BenchContext, comparison: Comparison): Promise<BenchRow> {
  await waitForQuiet('idle');
  await untilIdleAndAsleep(bench);
  const [ourIdle, stageIdle, janusIdle, feedIdle] = await Promise.all([
    coresOver(bench.product.pids(), IDLE_WINDOW_MS),
    coresOver([comparison.serverPid('ours')], IDLE_WINDOW_MS),
    coresOver([comparison.serverPid('janus')], IDLE_WINDOW_MS),
    coresOver(comparison.companionPids('janus'), IDLE_WINDOW_MS),
  ]);
  console.log(`  idle: ours ${percent(ourIdle, 2)}, Janus ${percent(janusIdle, 2)} of a core`);
  return {
    part: 'janus',
    what: 'idle, nobody watching, 30 s: ours (whole product) / Janus (its process)',
    target: 'ours ≤ 0.5 % of a core',
    median: `${percent(ourIdle, 2)} / ${percent(janusIdle, 2)}`,
    p95: `ratio ${round(ourIdle / janusIdle, 1)}`,
    pass: ourIdle <= 0.005,
    note:
      `process for process, our stage ${percent(stageIdle, 2)} (ratio ${round(stageIdle / janusIdle, 1)}); ` +
      `Janus's feed (scene drawing + GStreamer vp8enc) ${percent(feedIdle, 1)} besides, and it ` +
      `keeps sending to Janus with nobody watching; our cameras sleep a minute after the last viewer`,
  };
}

/**
 * How our N743AS publishes (the camera process's STAGE_CAMERA_SIMULCAST), for the rows' labels:
 * read during the ramps, while viewers watched (after them the camera may be asleep).
 */
function publisherLayers(ramps: Level[][]): string {
  const layers = Math.max(0, ...ramps.flat().map((level) => level.publisherLayers ?? 0));
  return layers > 1 ? `simulcast, ${layers} layers` : layers === 1 ? 'one layer' : 'layers unknown';
}

export async function runJanus(bench: BenchContext): Promise<BenchRow[]> {
  const janus = new JanusServer();
  const comparison = new Comparison(bench, janus);
  const rows: BenchRow[] = [];
  const { peerPasses: passes, peerHoldMs: holdMs, capacityLoad } = bench.options;
  await janus.start();
  try {
    await comparison.pages.start(bench.product.baseUrl, JANUS_JS);
    const sections = new Set(bench.options.peerSections);
    if (sections.has('sessions')) {
      await waitForQuiet('sessions');
      rows.push(...sessionRows(await sessionPasses(bench, comparison)));
    }
    // CPU per viewer: passes alternate which server goes first. A failure keeps the rows above.
    if (sections.has('capacity')) {
      try {
        const ramps: Record<ServerKind, Level[][]> = { ours: [], janus: [] };
        const levels = viewerLevels(bench.options.peerMaxViewers);
        for (let pass = 0; pass < passes; pass += 1) {
          const order: ServerKind[] = pass % 2 === 0 ? ['janus', 'ours'] : ['ours', 'janus'];
          for (const kind of order) {
            await waitForQuiet(`CPU per viewer, ${kind}`);
            console.log(
              `  CPU per viewer, pass ${pass + 1} of ${passes}: ${kind}${capacityLoad > 0 ? `, added load ${capacityLoad}` : ''}`,
            );
            const spinners = capacityLoad > 0 ? addLoad(capacityLoad) : undefined;
            try {
              ramps[kind].push(await comparison.ramp(kind, levels, holdMs));
            } finally {
              spinners?.stop();
            }
            await sleep(3_000); // sessions closed, the server back to its feed alone
          }
        }
        rows.push(...cpuRows(ramps, publisherLayers(ramps.ours), capacityLoad), keyFrameRow(ramps));
      } catch (error) {
        rows.push({
          part: 'janus',
          what: 'CPU per viewer',
          target: 'ratio ≤ 1.0',
          median: '–',
          p95: '–',
          pass: false,
          note: `failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        });
      }
    }
    if (sections.has('idle')) rows.push(await idleRow(bench, comparison));
    return rows;
  } finally {
    await comparison.pages.stop();
    await janus.dispose();
  }
}

/**
 * Whether every viewer got the full frame rate at `level`: ours by the stage's count (each viewer
 * its own layer's frames, none paused, the camera at its rate, and no more than
 * `MAX_BELOW_TOP_SHARE` of the viewers moved below its top layer, so that a stage whose own load
 * pushed its viewers down does not pass), Janus's by its pages.
 */
const fullRate = (level: Level) => {
  const share = level.ownLayerShare ?? level.forwardedShare;
  return share !== undefined
    ? share >= FULL_RATE_SHARE &&
        cameraAtRate(level) &&
        (level.viewersBelowTop ?? 0) <= MAX_BELOW_TOP_SHARE * level.viewers
    : level.minFps >= FULL_RATE_FPS;
};

/**
 * Ours: whether the camera itself sent its full frame rate over the hold. Its libwebrtc encoder
 * sends fewer frames on a loaded machine (10–18 a second were seen at load 8–10): the stage then
 * forwards fewer, and that level's CPU says nothing about a viewer's cost at 30.
 */
const cameraAtRate = (level: Level) =>
  level.publisherFps === undefined || level.publisherFps >= FULL_RATE_FPS;

function cpuRows(
  ramps: Record<ServerKind, Level[][]>,
  layers: string,
  addedLoad: number,
): BenchRow[] {
  const underLoad = addedLoad > 0 ? `, added load ${addedLoad}` : '';
  const slopes = (kind: ServerKind) =>
    ramps[kind].map((levels) => slope(levels.filter(cameraAtRate))).filter(Number.isFinite);
  const at = (kind: ServerKind, viewers: number) =>
    ramps[kind].map((levels) => perViewerAt(levels, viewers) ?? Number.NaN);
  const ratiosAt = (viewers: number) =>
    at('ours', viewers).map((ours, pass) => ours / (at('janus', viewers)[pass] ?? Number.NaN));
  const describe = (kind: ServerKind) =>
    ramps[kind]
      .map(
        (levels, pass) =>
          `pass ${pass + 1}: ` +
          levels
            .map(
              (l) =>
                `${l.viewers}→${percent(l.cores)} (slowest page ${round(l.minFps, 1)} fps` +
                (l.forwardedShare === undefined
                  ? ''
                  : `, sent on to the slowest ${round(l.forwardedShare * 100)} % of ${round(l.publisherFps ?? 0, 1)} fps` +
                    (l.ownLayerShare === undefined
                      ? ''
                      : `, ${round(l.ownLayerShare * 100)} % of its own layer's (${l.viewerLayers})`)) +
                `, key frames ${round(l.medianKeyFps, 1)}/s, ` +
                `${kind === 'ours' ? 'cameras' : 'feed'} ${percent(l.companionCores)}, load ${l.load.split(' ')[0]})`,
            )
            .join(', '),
      )
      .join('; ');
  // Capacity: the most viewers our stage forwarded at full rate, at most a core.
  const capacities = ramps.ours.map((levels) =>
    Math.max(
      0,
      ...levels.filter((level) => fullRate(level) && level.cores <= 1).map((l) => l.viewers),
    ),
  );
  const capacity = median(capacities);
  const slopeCell = (kind: ServerKind) =>
    `${round(median(slopes(kind)) * 100, 3)} % (${round(Math.min(...slopes(kind)) * 100, 3)}–${round(Math.max(...slopes(kind)) * 100, 3)})`;
  const perViewerRow = (viewers: number): BenchRow => {
    const ratios = ratiosAt(viewers).filter((value) => Number.isFinite(value));
    const ratio = median(ratios);
    const ours = at('ours', viewers).filter((value) => Number.isFinite(value));
    return {
      part: 'janus',
      what: `CPU per viewer at ${viewers} receive-only viewers (1→${viewers}), ours (${layers}) / Janus (one layer), ${ratios.length} of ${ramps.ours.length} passes (the others: our camera under 27 fps)${underLoad}`,
      target: 'ratio ≤ 1.0',
      median: `${round(median(ours) * 100, 3)} / ${round(median(at('janus', viewers).filter(Number.isFinite)) * 100, 3)} % of a core`,
      p95: `ratio ${round(ratio, 2)} (${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)})`,
      pass: ratio <= 1,
      note: `slope over every level (least squares), median (min–max of passes): ours ${slopeCell('ours')}, Janus ${slopeCell('janus')} of a core a viewer`,
    };
  };
  return [
    perViewerRow(50),
    perViewerRow(100),
    {
      part: 'janus',
      what: `viewers one stage forwards at full frame rate (the stage sends each ≥ 95 % of its layer's frames, none paused, ≤ 5 % below the top layer, the camera at ≥ 27 a second), stage ≤ 1 core, ours (${layers}), median of passes${underLoad}`,
      target: '≥ 100',
      median: `${capacity}`,
      p95: `passes ${capacities.join(', ')}`,
      pass: capacity >= 100,
      note: `levels ours: ${describe('ours')}; ` + `Janus: ${describe('janus')}`,
    },
  ];
}
