/**
 * Side by side with Janus (issue 18; `npm run bench -- --peer=janus`): Debian's Janus 1.1 with its
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
 * It stays whole past 400 lines: the parts compare the two servers in the same rounds.
 */
import { cpus, loadavg } from 'node:os';
import type { BrowserContext, Page } from '@playwright/test';
import { readJoin, setG2g, takeG2gSamples, waitForFirstFrame } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import { addLoad } from '../lib/added-load';
import { JANUS_JS, JanusServer, MOUNTPOINT_ID } from '../lib/janus';
import { pageProbe } from '../lib/page-probe';
import { PeerPageServer, peerSessionsScript, type PeerPageApi } from '../lib/peer-sessions';
import {
  addViewers,
  RECEIVE_ONLY_SCRIPT,
  receiverCounts,
  type ServerKind,
  type ViewerTarget,
} from '../lib/receive-only-viewers';
import type { BenchRow } from '../lib/result';
import { untilIdleAndAsleep } from './idle';
import { loadAverage } from '@tailcam/harness/load-average';
import { median } from '@tailcam/harness/stats';
import { cpuSecondsOf, round } from '../lib/stats';
import { sessionPasses, sessionRows } from './janus-sessions';

/** N743AS: stream index 0, the scene the Janus feed draws too. */
const STREAM_ID = 'N743AS';
const G2G_WINDOW_MS = 2_000;
/** The least time a timed session stays open (its page included). */
const SESSION_MIN_MS = 1_600;
const IDLE_WINDOW_MS = 30_000;
const VIEWERS_PER_PAGE = 25;
const FULL_RATE_FPS = 27;
/** Full frame rate counted at the stage: each viewer is sent this share of the camera's frames. */
const FULL_RATE_SHARE = 0.95;
/** At most this share of a level's viewers below the top layer (a starved page or two of 100). */
const MAX_BELOW_TOP_SHARE = 0.05;
/** Below this a level is measured again, and the ramp stops if it stays there: saturated. */
const SATURATED_FPS = 20;
/** How long the bench waits for the load average to fall below the cores before a section. */
const LOAD_WAIT_MS = 10_000;
const SETTLE_MS = 3_000;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Waits (bounded) for the 1-minute load average to fall below the cores; says when it did not. */
export async function waitForQuiet(what: string): Promise<void> {
  const deadline = Date.now() + LOAD_WAIT_MS;
  while ((loadavg()[0] ?? 0) >= cpus().length && Date.now() < deadline) await sleep(2_000);
  if ((loadavg()[0] ?? 0) >= cpus().length) {
    console.log(
      `  ${what}: load average ${loadAverage()} still ≥ ${cpus().length} cores after ${LOAD_WAIT_MS / 1000} s; measuring anyway`,
    );
  }
}

export interface Session {
  firstFrameMs: number;
  /** Each mark of the page probe (bench/page/probe.ts), ms after the session was created. */
  steps: Record<string, number>;
  g2g: number[];
}

export interface Level {
  viewers: number;
  /** Key frames a second each viewer got, median (the publisher's key frames, PLIs included). */
  medianKeyFps: number;
  /** Ours: PLIs the stage sent the camera a second, and its viewers' PLIs and FIRs a second. */
  plisPerSecond?: number;
  viewerRequestsPerSecond?: number;
  cores: number;
  companionCores: number;
  /** The publishing process changed during the hold (ours: the camera process restarted). */
  companionRestarted: boolean;
  minFps: number;
  medianFps: number;
  /**
   * Ours, counted at the stage: the frames it sent on to its slowest viewer over the hold, as a
   * share of the frames its publisher sent in its highest layer (1: the full frame rate).
   */
  forwardedShare?: number;
  /**
   * Ours, counted at the stage: the frames it sent on to its slowest viewer over the hold, as a
   * share of the frames of that viewer's own layer (`/_stats` viewerVideo); a paused viewer 0. A
   * viewer the per-viewer layers moved down (its page starved, issue 28) gets its layer's rate.
   */
  ownLayerShare?: number;
  /** Ours: which layer the viewers got at the end of the hold ("99 on f, 1 on h"). */
  viewerLayers?: string;
  /** Ours: viewers not on the camera's top layer at the end of the hold (moved down, or paused). */
  viewersBelowTop?: number;
  /** Ours: the publisher's frames a second in its highest layer over the hold. */
  publisherFps?: number;
  /** Ours: how many layers the publisher sent during the hold (simulcast: 3). */
  publisherLayers?: number;
  load: string;
}

/** CPU cores used by `pids` together over `ms`. */
async function coresOver(pids: number[], ms: number): Promise<number> {
  const total = () => pids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0), 0);
  const before = total();
  const started = performance.now();
  await sleep(ms);
  return (total() - before) / ((performance.now() - started) / 1000);
}

const percent = (cores: number, digits = 1) => `${round(cores * 100, digits)} %`;
/** Our stage and, when given, Janus: peer pages for either, timed sessions, viewer ramps. */
export class Comparison {
  readonly pages = new PeerPageServer();
  private readonly chromiumMajor: number;

  constructor(
    private readonly bench: BenchContext,
    private readonly janus?: JanusServer,
  ) {
    this.chromiumMajor = Number(/^(\d+)/.exec(bench.browser.version())?.[1] ?? 0);
  }

  /** A context whose pages (the peer page server's) can open sessions on either server. */
  async context(receiveOnly: boolean): Promise<BrowserContext> {
    const context = await this.bench.browser.newContext({
      baseURL: this.pages.url,
      viewport: { width: 800, height: 450 },
    });
    await context.addInitScript(
      receiveOnly ? RECEIVE_ONLY_SCRIPT : await pageProbe(this.bench.loginToken),
    );
    await context.addInitScript(peerSessionsScript(this.chromiumMajor));
    return context;
  }

  async peerPage(context: BrowserContext, kind: ServerKind): Promise<Page> {
    const page = await context.newPage();
    await page.goto('/');
    await page.addScriptTag({ url: kind === 'ours' ? '/sdk/stage.js' : '/janus.js' });
    return page;
  }

  target(kind: ServerKind): ViewerTarget {
    return kind === 'ours'
      ? {
          kind,
          server: this.bench.product.baseUrl,
          stream: STREAM_ID,
          loginToken: this.bench.loginToken,
        }
      : { kind, server: this.started(this.janus).wsUrl, stream: MOUNTPOINT_ID };
  }

  serverPid(kind: ServerKind): number {
    const pid = kind === 'ours' ? this.bench.product.stagePid() : this.started(this.janus).pid;
    if (pid === undefined) throw new Error(`no ${kind} server process`);
    return pid;
  }

  /** Ours: the camera process that publishes to the stage; Janus: the feed and GStreamer. */
  companionPids(kind: ServerKind): number[] {
    if (kind === 'janus') return this.started(this.janus).feedPids();
    const pid = this.bench.product.camerasPid();
    return pid === undefined ? [] : [pid];
  }

  private started(janus: JanusServer | undefined): JanusServer {
    if (!janus) throw new Error('this comparison runs without Janus');
    return janus;
  }

  /** One timed session in a fresh page: session → first frame, then (`g2g`) 2 s of glass to glass. */
  async session(context: BrowserContext, kind: ServerKind, g2g = true): Promise<Session> {
    const openedAt = performance.now();
    const page = await this.peerPage(context, kind);
    try {
      const target = this.target(kind);
      // The participant token is fetched before the clock starts: the figure starts at new Stage().
      await page.evaluate(
        async ({ target }) => {
          const peer = (window as unknown as { __peer: PeerPageApi }).__peer;
          if (target.kind === 'janus') {
            await peer.joinJanus(target.server, Number(target.stream), peer.show);
          } else {
            const token = await peer.participantToken(
              target.server,
              target.loginToken ?? '',
              String(target.stream),
            );
            await peer.joinOurs(token, peer.show);
          }
        },
        { target },
      );
      await waitForFirstFrame(page);
      const join = await readJoin(page);
      const steps: Record<string, number> = {};
      for (const mark of join.marks) steps[mark.name] ??= mark.at - join.clickAt;
      const firstFrameMs = (join.firstFrameAt ?? Number.NaN) - join.clickAt;
      if (!g2g) {
        // Open SESSION_MIN_MS whatever its first frame took: one server's joins are then ≥ 3 s
        // apart (the other server's session comes between), as with glass to glass sampled.
        // Back to back, Janus's feed answered its PLIs late (Janus 530 against 212 ms, issue 31).
        await page.waitForTimeout(Math.max(0, SESSION_MIN_MS - (performance.now() - openedAt)));
        return { firstFrameMs, steps, g2g: [] };
      }
      await page.waitForTimeout(700); // past the start-up frames, as the g2g part
      await setG2g(page, true);
      await page.waitForTimeout(G2G_WINDOW_MS);
      await setG2g(page, false);
      const samples = (await takeG2gSamples(page))
        .filter((sample) => sample.streamIndex === 0)
        .map((sample) => sample.presentedMs - sample.captureMs);
      return { firstFrameMs, steps, g2g: samples };
    } finally {
      await page.close();
    }
  }

  /** One level held `holdMs`: the server's CPU and every viewer's frames a second. */
  async measure(kind: ServerKind, pages: Page[], viewers: number, holdMs: number): Promise<Level> {
    const counts = async () => {
      const all = await Promise.all(pages.map((page) => receiverCounts(page)));
      return { frames: all.flatMap((c) => c.frames), keys: all.flatMap((c) => c.keys) };
    };
    const before = await counts();
    const started = performance.now();
    const companionsBefore = this.companionPids(kind).join(',');
    const keyFrameCounts = async () => {
      if (kind !== 'ours') return undefined;
      const publisher = (await this.bench.product.stage.stats()).stages[STREAM_ID]?.publisher;
      return publisher
        ? {
            plis: publisher.plisSent,
            asked: publisher.viewerKeyFrameRequests,
            published: Math.max(0, ...publisher.layers.map((layer) => layer.frames)),
            forwarded: publisher.framesForwarded,
            viewers: publisher.viewerVideo,
            topLayer: publisher.layers[0]?.rid ?? null,
            layers: publisher.layers.length,
          }
        : undefined;
    };
    const requestsBefore = await keyFrameCounts();
    const [cores, companionCores] = await Promise.all([
      coresOver([this.serverPid(kind)], holdMs),
      coresOver(this.companionPids(kind), holdMs),
    ]);
    const after = await counts();
    const seconds = (performance.now() - started) / 1000;
    const requestsAfter = await keyFrameCounts();
    const perSecond = (pick: (c: { plis: number; asked: number; published: number }) => number) =>
      requestsBefore && requestsAfter
        ? (pick(requestsAfter) - pick(requestsBefore)) / seconds
        : undefined;
    const fps = after.frames.map((count, index) => (count - (before.frames[index] ?? 0)) / seconds);
    const keysPerSecond = after.keys.map(
      (count, index) => (count - (before.keys[index] ?? 0)) / seconds,
    );
    // Each viewer held through the hold, matched by its subscription: what it was sent over the
    // hold, against the camera's top layer and against its own layer (a pause meanwhile: 0).
    // Undefined when a viewer came or went during the hold.
    const held =
      requestsBefore && requestsAfter
        ? requestsAfter.viewers.flatMap((viewer) => {
            const was = requestsBefore.viewers.find((each) => each.id === viewer.id);
            return was ? [{ was, viewer }] : [];
          })
        : [];
    const sameViewers =
      requestsBefore !== undefined &&
      requestsAfter !== undefined &&
      held.length === requestsBefore.viewers.length &&
      held.length === requestsAfter.viewers.length;
    const published =
      requestsBefore && requestsAfter && requestsAfter.published - requestsBefore.published;
    const forwardedShare =
      sameViewers && published
        ? Math.min(
            ...held.map(
              ({ was, viewer }) => (viewer.framesForwarded - was.framesForwarded) / published,
            ),
          )
        : undefined;
    const ownLayerShare = sameViewers
      ? Math.min(
          ...held.map(({ was, viewer }) => {
            const offered = viewer.framesOffered - was.framesOffered;
            if (viewer.paused || viewer.pauses > was.pauses || offered <= 0) return 0;
            return (viewer.framesForwarded - was.framesForwarded) / offered;
          }),
        )
      : undefined;
    const topLayer = requestsAfter?.topLayer;
    const viewersBelowTop = requestsAfter?.viewers.filter(
      (viewer) => viewer.paused || viewer.layer !== topLayer,
    ).length;
    return {
      forwardedShare,
      ownLayerShare,
      viewersBelowTop,
      viewerLayers: requestsAfter && describeViewerLayers(requestsAfter.viewers),
      publisherFps: perSecond((c) => c.published),
      publisherLayers: requestsAfter?.layers,
      medianKeyFps: median(keysPerSecond),
      plisPerSecond: perSecond((c) => c.plis),
      viewerRequestsPerSecond: perSecond((c) => c.asked),
      viewers,
      cores,
      companionCores,
      companionRestarted: this.companionPids(kind).join(',') !== companionsBefore,
      minFps: Math.min(...fps),
      medianFps: median(fps),
      load: loadAverage(),
    };
  }

  /** Adds receive-only viewers level by level, holding each; stops early when one falls behind. */
  async ramp(kind: ServerKind, levels: number[], holdMs: number): Promise<Level[]> {
    const context = await this.context(true);
    const measured: Level[] = [];
    try {
      const pages: { page: Page; viewers: number }[] = [];
      let total = 0;
      for (const level of levels) {
        while (total < level) {
          let current = pages.at(-1);
          if (!current || current.viewers >= VIEWERS_PER_PAGE) {
            current = { page: await this.peerPage(context, kind), viewers: 0 };
            pages.push(current);
          }
          const adding = Math.min(VIEWERS_PER_PAGE - current.viewers, level - total);
          try {
            await addViewers(current.page, this.target(kind), adding);
          } catch (error) {
            // Viewers that cannot start in a minute: the machine (or the server) is saturated.
            console.log(`  ${kind}: the ramp stops at ${total} viewers: ${String(error)}`);
            return measured;
          }
          current.viewers += adding;
          total += adding;
        }
        await sleep(SETTLE_MS);
        let entry = await this.measure(
          kind,
          pages.map((p) => p.page),
          total,
          holdMs,
        );
        if (behind(entry))
          entry = await this.measure(
            kind,
            pages.map((p) => p.page),
            total,
            holdMs,
          );
        measured.push(entry);
        console.log(
          `  ${kind}: ${total} viewers, server ${percent(entry.cores)} of a core, slowest viewer ` +
            `${round(entry.minFps, 1)} fps (median ${round(entry.medianFps, 1)}` +
            (entry.forwardedShare === undefined
              ? ''
              : `; the stage sent its slowest viewer ${round(entry.forwardedShare * 100)} % of the camera's ${round(entry.publisherFps ?? 0, 1)} frames a second` +
                (entry.ownLayerShare === undefined
                  ? ''
                  : ` and ${round(entry.ownLayerShare * 100)} % of its own layer's (${entry.viewerLayers})`)) +
            `, key frames ` +
            `${round(entry.medianKeyFps, 1)} a second` +
            (entry.plisPerSecond === undefined
              ? ''
              : `; PLIs to the camera ${round(entry.plisPerSecond, 1)}/s, viewers' key frame requests ${round(entry.viewerRequestsPerSecond ?? 0, 1)}/s`) +
            `), load ${entry.load}` +
            (entry.companionRestarted
              ? `; the ${kind === 'ours' ? 'camera' : 'feed'} process changed during the hold`
              : ''),
        );
        // Saturated (viewers far behind, or the server at a core): more would measure the queue.
        if (behind(entry) || entry.cores > 0.95) break;
      }
    } finally {
      await context.close();
    }
    return measured;
  }
}

/** "99 on f, 1 on h": how many viewers got each layer (or none: paused). */
function describeViewerLayers(viewers: { layer: string | null; paused: boolean }[]): string {
  const counts = new Map<string, number>();
  for (const viewer of viewers) {
    const name = viewer.paused
      ? 'paused'
      : viewer.layer === null
        ? 'its one layer'
        : `on ${viewer.layer}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, count]) => `${count} ${name}`).join(', ');
}

/**
 * A level whose viewers fall behind: ours by the stage's own count (the frames it sent its slowest
 * viewer, under two thirds of that viewer's own layer's, else of the camera's), Janus's by its
 * viewers' pages (under SATURATED_FPS), which on a loaded machine also counts Chromium's own
 * lateness.
 */
function behind(level: Level): boolean {
  const share = level.ownLayerShare ?? level.forwardedShare;
  return share !== undefined ? share < 2 / 3 : level.minFps < SATURATED_FPS;
}

/** The ramp's levels: 1, 25, 50 and 100 viewers, up to `max`. */
export const viewerLevels = (max: number): number[] =>
  [1, 25, 50, 100].filter((level) => level <= max);

/**
 * Key frames a second each viewer got (median of the viewers, median of the passes) at each level,
 * and for ours the PLIs the stage sent the camera against its viewers' own PLIs and FIRs: the
 * receive-only viewers ask about twice a second each (issue 27 §3). Janus's beside ours when it ran.
 */
export function keyFrameRow(ramps: Partial<Record<ServerKind, Level[][]>>): BenchRow {
  const at = (kind: ServerKind, pick: (level: Level) => number | undefined) =>
    [...new Set((ramps[kind] ?? []).flat().map((level) => level.viewers))]
      .sort((a, b) => a - b)
      .map((viewers) => {
        const values = (ramps[kind] ?? [])
          .flat()
          .filter((level) => level.viewers === viewers)
          .map(pick)
          .filter((value): value is number => value !== undefined);
        return { viewers, value: values.length > 0 ? median(values) : Number.NaN };
      });
  const cells = (figures: { viewers: number; value: number }[]) =>
    figures.map((figure) => `${figure.viewers}: ${round(figure.value, 1)}`).join(', ');
  const ours = at('ours', (level) => level.medianKeyFps);
  const crowded = ours.filter((figure) => figure.viewers >= 25);
  const janus = ramps.janus
    ? `; Janus, key frames a viewer: ${cells(at('janus', (level) => level.medianKeyFps))}`
    : '';
  return {
    part: ramps.janus ? 'janus' : 'keyframes',
    what: `key frames a second a receive-only viewer, ours, by viewers (${(ramps.ours ?? []).length} pass(es))`,
    target: '≤ 1.2 from 25 viewers (Janus 1)',
    median: cells(ours),
    p95: `PLIs to the camera/s ${cells(at('ours', (level) => level.plisPerSecond))}`,
    pass: crowded.length > 0 && crowded.every((figure) => figure.value <= 1.2),
    note:
      `viewers' own PLIs and FIRs/s ${cells(at('ours', (level) => level.viewerRequestsPerSecond))}; ` +
      `frames a second a viewer (median) ${cells(at('ours', (level) => level.medianFps))}` +
      janus,
  };
}

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
