/**
 * The Janus comparison's instruments (janus.ts, janus-sessions.ts, keyframes.ts): peer pages that
 * open a session on our stage or on Janus, one timed session (session → first frame, then 2 s of
 * glass to glass), and ramps of receive-only viewers (bench/lib/receive-only-viewers.ts), 25 a
 * page, each level held once every viewer receives, the server process's CPU read from /proc and,
 * for ours, the frames the stage sent each viewer counted at the stage (/_stats).
 */
import { cpus, loadavg } from 'node:os';
import type { BrowserContext, Page } from '@playwright/test';
import { readJoin, setG2g, takeG2gSamples, waitForFirstFrame } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import { MOUNTPOINT_ID, type JanusServer } from '../lib/janus';
import { pageProbe } from '../lib/page-probe';
import { PeerPageServer, peerSessionsScript, type PeerPageApi } from '../lib/peer-sessions';
import {
  addViewers,
  RECEIVE_ONLY_SCRIPT,
  receiverCounts,
  type ServerKind,
  type ViewerTarget,
} from '../lib/receive-only-viewers';
import { loadAverage } from '@tailcam/harness/load-average';
import { median } from '@tailcam/harness/stats';
import { cpuSecondsOf, round } from '../lib/stats';

/** N743AS: stream index 0, the scene the Janus feed draws too. */
const STREAM_ID = 'N743AS';
const G2G_WINDOW_MS = 2_000;
/** The least time a timed session stays open (its page included). */
const SESSION_MIN_MS = 1_600;
const VIEWERS_PER_PAGE = 25;
/** Below this a level is measured again, and the ramp stops if it stays there: saturated. */
const SATURATED_FPS = 20;
/** How long the bench waits for the load average to fall below the cores before a section. */
const LOAD_WAIT_MS = 10_000;
const SETTLE_MS = 3_000;

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

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
   * viewer the per-viewer layers moved down (its page starved; decision 0069) gets its layer's rate.
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
export async function coresOver(pids: number[], ms: number): Promise<number> {
  const total = () => pids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0), 0);
  const before = total();
  const started = performance.now();
  await sleep(ms);
  return (total() - before) / ((performance.now() - started) / 1000);
}

export const percent = (cores: number, digits = 1) => `${round(cores * 100, digits)} %`;
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
        // Back to back, Janus's feed answered its PLIs late (Janus 530 against 212 ms).
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
