/**
 * The soak: Chromium viewers joining and leaving streams on an instance of Tailcam of its own,
 * through the real app and SDK, while the local stage's /_stats is sampled. What it measures:
 * joins that played, leaks (peer connections, sockets and SDK listeners left behind, in the page
 * after each in-app leave and on the stage at the end), errors (page errors, console errors,
 * error lines in the API and stage logs) and the stage's memory. Around the viewers, optionally:
 * a 'Watch all' tab open throughout, the camera process killed with SIGKILL every few minutes
 * (the start script restarts it), and a browser WHIP publisher coming and going on one aircraft;
 * and throughout, each process's memory and whether the forwarding process (the stage) ever
 * restarted. `npm run soak` runs the long version (soak/soak.ts); e2e/soak.spec.ts a short one
 * that asserts the counts.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Browser, Page } from '@playwright/test';
import { launchChromium } from '@tailcam/harness/chromium';
import { playback, type Playback } from '@tailcam/harness/player';
import { Product } from '@tailcam/harness/product';
import { signIn } from '@tailcam/harness/sign-in';
import type { StageStats } from '@tailcam/harness/stage-control';

export interface SoakOptions {
  /** The instance: its name, ports and log file. */
  name: string;
  port: number;
  stagePort: number;
  logFile: string;
  /** Concurrent viewers (each a Chromium page). */
  viewers: number;
  /** Stop after this many joins in all, or at the deadline, whichever comes first. */
  joins: number;
  durationMs: number;
  /**
   * Go on past `joins` until the run has lasted this long (still bounded by `durationMs`): a
   * quiet machine joins faster than the dwell was sized for, and the run must last its minutes.
   */
  minDurationMs?: number;
  /** How long a viewer watches before leaving: a random time in this range. */
  dwellMs: [number, number];
  /** Every n-th leave closes the page instead of using the app's Back link (an abrupt leave). */
  closePageEvery: number;
  /** A 'Watch all' tab open from start to end (three more sessions of the same account). */
  multiView?: boolean;
  /** The camera process killed with SIGKILL this often (the start script restarts it). */
  cameraKillEveryMs?: number;
  /** A browser WHIP publisher on N954AS: on air for half of each such period, then gone. */
  whipPublisherEveryMs?: number;
  /** More environment for the instance (e.g. MALLOC_ARENA_MAX). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** Resident memory of a process over the run, in MiB. */
export interface MemoryTrend {
  start: number;
  peak: number;
  end: number;
}

export interface InPageCounts {
  openPeerConnections: number;
  openSockets: number;
  stageListeners: number;
}

export interface StageSample {
  atMs: number;
  sockets: number;
  peerConnections: number;
  rssMiB: number;
}

export interface SoakResult {
  durationMs: number;
  joins: number;
  leaves: number;
  failedJoins: string[];
  /** Joins that played only once the camera process, killed on purpose, was back on air. */
  joinsDuringCameraRestart: string[];
  /** The smallest in-page counts seen while a video played: proves the instruments count. */
  whilePlaying: InPageCounts;
  /** The largest in-page counts seen once a leave through the app had settled (all should be 0). */
  worstAfterLeave: InPageCounts;
  leavesWithLeftovers: number;
  pageErrors: string[];
  consoleErrors: string[];
  serverErrorLines: string[];
  stageSamples: StageSample[];
  maxConcurrentPeerConnections: number;
  /** The stage once every viewer has gone. */
  finalStage: {
    sockets: number;
    peerConnections: number;
    participants: number;
    audioListeners: number;
    cameraViewers: number;
  };
  rssMiB: { start: number; peak: number; end: number };
  joinMs: { p50: number; p95: number; max: number };
  /** Times the stage (the forwarding process) was seen with a new pid: it must stay 0. */
  stageRestarts: number;
  cameraKills: number;
  whipPublisher: { sessions: number; onAir: number; failures: string[] };
  /** The 'Watch all' tab at the end: tiles whose video still advanced. */
  multiViewTilesPlayingAtEnd: number | undefined;
  processRssMiB: { stage: MemoryTrend; cameras: MemoryTrend; api: MemoryTrend };
  /** Each process's RSS (MiB) by minute of the run: the highest sample of each minute. */
  processRssByMinute: { stage: number[]; cameras: number[]; api: number[] };
  loadAverage: { start: string; end: string };
}

function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kiB = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kiB === undefined ? undefined : Math.round(Number(kiB) / 1024);
  } catch {
    return undefined; // gone meanwhile
  }
}

function trend(values: number[]): MemoryTrend {
  return { start: values[0] ?? 0, peak: Math.max(0, ...values), end: values.at(-1) ?? 0 };
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** Publishes a canvas from the page over WHIP (plain RTCPeerConnection and fetch). */
async function publishFromPage(page: Page, whipUrl: string, token: string): Promise<void> {
  await page.evaluate(
    async ({ url, bearer }) => {
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 360;
      const context = canvas.getContext('2d');
      let frame = 0;
      const timer = setInterval(() => {
        if (!context) return;
        context.fillStyle = `hsl(${(frame += 3) % 360} 60% 45%)`;
        context.fillRect(0, 0, 640, 360);
      }, 33);
      const track = canvas.captureStream(30).getVideoTracks()[0];
      if (!track) throw new Error('no canvas track');
      const peer = new RTCPeerConnection();
      peer.addTransceiver(track, { direction: 'sendonly' });
      await peer.setLocalDescription(await peer.createOffer());
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${bearer}` },
        body: peer.localDescription?.sdp ?? '',
      });
      if (response.status !== 201) {
        throw new Error(`WHIP answered ${response.status}: ${await response.text()}`);
      }
      const location = new URL(response.headers.get('location') ?? '', url).href;
      await peer.setRemoteDescription({ type: 'answer', sdp: await response.text() });
      (window as unknown as { soakPublisher: unknown }).soakPublisher = {
        stop: async () => {
          clearInterval(timer);
          await fetch(location, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${bearer}` },
          });
          peer.close();
        },
      };
    },
    { url: whipUrl, bearer: token },
  );
}

async function unpublishFromPage(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const publisher = (window as unknown as { soakPublisher?: { stop: () => Promise<void> } })
      .soakPublisher;
    await publisher?.stop();
  });
}

/** How many of the page's videos still advance (decoded frames grow over a second). */
async function videosPlaying(page: Page): Promise<number> {
  const frames = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('video')].map(
        (video) => video.getVideoPlaybackQuality().totalVideoFrames,
      ),
    );
  const before = await frames();
  await page.waitForTimeout(1_500);
  const after = await frames();
  return after.filter((count, index) => count > (before[index] ?? 0) + 5).length;
}

const STREAMS = ['N743AS', 'N953AS', 'N954AS'] as const;
const VIEWER = { username: 'soak-viewer', password: 'soak viewer password 1' };

/**
 * Runs before any page script: keeps every RTCPeerConnection and WebSocket the page makes, so
 * that the test can count those still open.
 */
function instrumentConnections(): void {
  const tracked = { peerConnections: [] as RTCPeerConnection[], sockets: [] as WebSocket[] };
  Object.defineProperty(window, '__soakConnections', { value: tracked });
  const NativePeerConnection = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeerConnection {
    constructor(...args: ConstructorParameters<typeof RTCPeerConnection>) {
      super(...args);
      tracked.peerConnections.push(this);
    }
  };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      tracked.sockets.push(this);
    }
  };
}

/** Mirrors the SDK's Stage listener sets (on/off), to count the listeners the app leaves. */
function instrumentStageListeners(): void {
  const target = window as unknown as {
    IVSBroadcastClient?: { Stage: { prototype: Record<string, unknown> } };
    __soakListeners?: Map<object, Map<string, Set<unknown>>>;
  };
  const prototype = target.IVSBroadcastClient?.Stage.prototype;
  if (prototype === undefined || target.__soakListeners !== undefined) return;
  const listeners = new Map<object, Map<string, Set<unknown>>>();
  target.__soakListeners = listeners;
  const on = prototype.on as (this: object, event: string, callback: unknown) => void;
  const off = prototype.off as (this: object, event: string, callback: unknown) => void;
  prototype.on = function (this: object, event: string, callback: unknown) {
    let byEvent = listeners.get(this);
    if (byEvent === undefined) listeners.set(this, (byEvent = new Map()));
    let set = byEvent.get(event);
    if (set === undefined) byEvent.set(event, (set = new Set()));
    set.add(callback);
    on.call(this, event, callback);
  };
  prototype.off = function (this: object, event: string, callback: unknown) {
    listeners.get(this)?.get(event)?.delete(callback);
    off.call(this, event, callback);
  };
}

async function inPageCounts(page: Page): Promise<InPageCounts> {
  return page.evaluate(() => {
    const target = window as unknown as {
      __soakConnections: { peerConnections: RTCPeerConnection[]; sockets: WebSocket[] };
      __soakListeners?: Map<object, Map<string, Set<unknown>>>;
    };
    const tracked = target.__soakConnections;
    // Forget the closed ones, so that the lists stay small over hundreds of joins.
    tracked.peerConnections = tracked.peerConnections.filter(
      (pc) => pc.signalingState !== 'closed',
    );
    tracked.sockets = tracked.sockets.filter((socket) => socket.readyState < WebSocket.CLOSING);
    let stageListeners = 0;
    for (const byEvent of target.__soakListeners?.values() ?? []) {
      for (const set of byEvent.values()) stageListeners += set.size;
    }
    return {
      openPeerConnections: tracked.peerConnections.length,
      openSockets: tracked.sockets.length,
      stageListeners,
    };
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((done) => setTimeout(done, 100));
  }
  return false;
}

/** Until the player's video has decoded frames and its time moves. */
async function waitForPlayback(page: Page, timeoutMs: number): Promise<boolean> {
  let first: Playback | undefined;
  return waitUntil(async () => {
    const now = await playback(page);
    if (now.frames === 0) return false;
    // A new track (a publisher taking over, a camera back after a kill) loads the element
    // anew: its frame count and time start again from 0, so the baseline starts again too
    // (else, with N954AS's publisher changing every few seconds, no track outran the last one).
    if (first === undefined || now.frames < first.frames || now.time < first.time) first = now;
    return now.frames > first.frames + 3 && now.time > first.time;
  }, timeoutMs);
}

const randomBetween = ([min, max]: [number, number]) => min + Math.random() * (max - min);

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
}

/**
 * Error lines in the product's log: pino level ≥ 50 (error, fatal), anything unhandled, and the
 * start script's note that the stage died (a crash would otherwise pass as a reconnect).
 */
function serverErrorLines(logFile: string): string[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(
      (line) =>
        /"level":(5\d|60)/.test(line) ||
        /unhandled|uncaught|TypeError|RangeError|the local stage stopped/i.test(line),
    );
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => {});
  const product = new Product({
    name: options.name,
    port: options.port,
    stagePort: options.stagePort,
    logFile: options.logFile,
    env: options.env,
  });
  let browser: Browser | undefined;
  let sampling = true;
  try {
    product.addViewer(VIEWER);
    await product.start();
    const loginToken = await product.loginToken(VIEWER);
    browser = await launchChromium();

    const started = Date.now();
    const loadAtStart = load();
    const deadline = started + options.durationMs;
    const stageSamples: StageSample[] = [];
    const firstStagePid = product.stagePid();
    const stagePids = new Set<number>();
    const processRss = { stage: [] as number[], cameras: [] as number[], api: [] as number[] };
    const byMinute = { stage: [] as number[], cameras: [] as number[], api: [] as number[] };
    const sampleProcesses = () => {
      const stagePid = product.stagePid();
      if (stagePid !== undefined) stagePids.add(stagePid);
      for (const [name, pid] of [
        ['stage', stagePid],
        ['cameras', product.camerasPid()],
        ['api', product.apiPid()],
      ] as const) {
        const rss = rssOf(pid);
        if (rss === undefined) continue;
        processRss[name].push(rss);
        const minute = Math.floor((Date.now() - started) / 60_000);
        byMinute[name][minute] = Math.max(byMinute[name][minute] ?? 0, rss);
      }
    };
    const sample = async (): Promise<StageStats> => {
      sampleProcesses();
      const stats = await product.stage.stats();
      stageSamples.push({
        atMs: Date.now() - started,
        sockets: stats.sockets,
        peerConnections: stats.peerConnections,
        rssMiB: Math.round(stats.process.rssBytes / 2 ** 20),
      });
      return stats;
    };
    await sample();
    const sampler = (async () => {
      while (sampling) {
        await new Promise((done) => setTimeout(done, 2_000));
        if (sampling) await sample().catch(() => {});
      }
    })();

    /** Every aircraft has a publisher on air (a camera or an encoder). */
    const allOnAir = async () =>
      Object.values((await product.stage.stats()).stages).every(
        (stage) => stage.publisher !== null,
      );
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    const failedJoins: string[] = [];
    /** Joins that did not play while the camera process was down or restarting (on purpose). */
    const joinsDuringCameraRestart: string[] = [];
    const killTimes: number[] = [];
    const joinMs: number[] = [];
    const worstAfterLeave: InPageCounts = {
      openPeerConnections: 0,
      openSockets: 0,
      stageListeners: 0,
    };
    let whilePlaying: InPageCounts | undefined;
    let leavesWithLeftovers = 0;
    let joins = 0;
    let leaves = 0;
    const minEnd = started + (options.minDurationMs ?? 0);
    const moreToDo = () => (joins < options.joins || Date.now() < minEnd) && Date.now() < deadline;

    const openPage = async (): Promise<Page> => {
      const page = await browser!.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      await page.addInitScript(instrumentConnections);
      await signIn(page, loginToken);
      await page.goto(`${product.baseUrl}/home`);
      await page.evaluate(instrumentStageListeners);
      return page;
    };

    const viewer = async (slot: number) => {
      let page = await openPage();
      for (let round = 0; moreToDo(); round += 1) {
        const streamId = STREAMS[(slot + round) % STREAMS.length]!;
        joins += 1;
        const joinStarted = Date.now();
        await page.getByRole('link', { name: new RegExp(streamId) }).click();
        if (await waitForPlayback(page, 20_000)) {
          joinMs.push(Date.now() - joinStarted);
          let counts = await inPageCounts(page);
          // Between a publisher leaving and the next one joining (N954AS's changes every few
          // seconds here) the player holds no peer connection for a moment: read again.
          for (let tries = 0; counts.openPeerConnections === 0 && tries < 20; tries += 1) {
            await page.waitForTimeout(100);
            counts = await inPageCounts(page);
          }
          whilePlaying = {
            openPeerConnections: Math.min(
              whilePlaying?.openPeerConnections ?? Infinity,
              counts.openPeerConnections,
            ),
            openSockets: Math.min(whilePlaying?.openSockets ?? Infinity, counts.openSockets),
            stageListeners: Math.min(
              whilePlaying?.stageListeners ?? Infinity,
              counts.stageListeners,
            ),
          };
        } else {
          const what = `viewer ${slot}, join ${round}, ${streamId}`;
          // A kill of the camera process in the 30 s before the join gave up took the picture
          // away on purpose; its restart, with the start script's backoff, can take longer than
          // the wait on a busy machine. Such a join must still play once every aircraft is on
          // air again, in the same page ('Waiting for video', then the picture): only then it
          // counts as played.
          const joinEnded = Date.now();
          const heldUpByCameraKill = killTimes.some(
            (at) => at >= joinStarted - 30_000 && at <= joinEnded,
          );
          if (
            heldUpByCameraKill &&
            (await waitUntil(allOnAir, 60_000)) &&
            (await waitForPlayback(page, 20_000))
          ) {
            joinsDuringCameraRestart.push(what);
          } else {
            failedJoins.push(what);
          }
        }
        await page.waitForTimeout(randomBetween(options.dwellMs));
        leaves += 1;
        if (leaves % options.closePageEvery === 0) {
          // An abrupt leave: the tab goes while the video plays; the stage must notice alone.
          await page.close();
          page = await openPage();
          continue;
        }
        await page.getByRole('link', { name: /Back/ }).click();
        await page.waitForURL(/\/home$/);
        const settled = await waitUntil(async () => {
          const counts = await inPageCounts(page);
          return counts.openPeerConnections + counts.openSockets + counts.stageListeners === 0;
        }, 5_000);
        if (!settled) {
          leavesWithLeftovers += 1;
          const counts = await inPageCounts(page);
          worstAfterLeave.openPeerConnections = Math.max(
            worstAfterLeave.openPeerConnections,
            counts.openPeerConnections,
          );
          worstAfterLeave.openSockets = Math.max(worstAfterLeave.openSockets, counts.openSockets);
          worstAfterLeave.stageListeners = Math.max(
            worstAfterLeave.stageListeners,
            counts.stageListeners,
          );
        }
        if (leaves % 25 === 0) {
          const last = stageSamples.at(-1);
          log(
            `${Math.round((Date.now() - started) / 1000)} s: ${joins} joins, ${leaves} leaves, stage ${last?.peerConnections} peer connections, ${last?.rssMiB} MiB`,
          );
        }
      }
      await page.close();
    };

    // A 'Watch all' tab, open throughout.
    let multiViewPage: Page | undefined;
    if (options.multiView) {
      multiViewPage = await browser.newPage();
      multiViewPage.on('pageerror', (error) => pageErrors.push(`watch-all: ${error.message}`));
      await signIn(multiViewPage, loginToken);
      await multiViewPage.goto(`${product.baseUrl}/watch-all`);
      if (!(await waitUntil(async () => (await videosPlaying(multiViewPage!)) === 3, 30_000))) {
        failedJoins.push('the Watch all tab did not play its three tiles');
      }
    }

    // Churn beside the viewers, until they are done.
    let viewersDone = false;
    const pause = async (ms: number) => {
      const until = Date.now() + ms;
      while (!viewersDone && Date.now() < until) await new Promise((done) => setTimeout(done, 250));
    };
    let cameraKills = 0;
    const cameraKillTimes = killTimes;
    const cameraChurn = (async () => {
      if (!options.cameraKillEveryMs) return;
      for (;;) {
        await pause(options.cameraKillEveryMs);
        if (viewersDone) return;
        const pid = product.camerasPid();
        if (pid === undefined) continue;
        process.kill(pid, 'SIGKILL');
        cameraKills += 1;
        cameraKillTimes.push(Date.now());
        log(`${Math.round((Date.now() - started) / 1000)} s: camera process ${pid} killed`);
        // The next period starts once every aircraft is on air again, however long the restart.
        await waitUntil(allOnAir, 60_000);
      }
    })();
    const whipPublisher = { sessions: 0, onAir: 0, failures: [] as string[] };
    const whipChurn = (async () => {
      if (!options.whipPublisherEveryMs) return;
      const { whipUrl, token } = product.publishToken('N954AS');
      const page = await browser!.newPage();
      // `npm run soak` runs under tsx, whose esbuild names functions with a `__name` helper that
      // the page does not have (Playwright's own transform, in the e2e run, adds none).
      await page.evaluate('globalThis.__name ??= (fn) => fn');
      try {
        for (;;) {
          await pause(options.whipPublisherEveryMs / 2);
          if (viewersDone) return;
          whipPublisher.sessions += 1;
          try {
            await publishFromPage(page, whipUrl, token);
            const onAir = await waitUntil(
              async () =>
                (await product.stage.stats()).stages.N954AS?.publisher?.kind === 'encoder',
              15_000,
            );
            if (onAir) whipPublisher.onAir += 1;
            else whipPublisher.failures.push(`session ${whipPublisher.sessions} never on air`);
          } catch (error) {
            whipPublisher.failures.push(String(error));
          }
          await pause(options.whipPublisherEveryMs / 2);
          await unpublishFromPage(page).catch((error: unknown) =>
            whipPublisher.failures.push(`stop: ${String(error)}`),
          );
        }
      } finally {
        await page.close();
      }
    })();

    await Promise.all(Array.from({ length: options.viewers }, (_, slot) => viewer(slot)));
    viewersDone = true;
    await Promise.all([cameraChurn, whipChurn]);
    // The churn has stopped: once every aircraft is on air again, the tab must play all three
    // (the tiles' own reconnects and 'Waiting for video' brought them through the churn).
    let multiViewTilesPlayingAtEnd: number | undefined;
    if (multiViewPage) {
      const tab = multiViewPage;
      await waitUntil(allOnAir, 60_000);
      await waitUntil(async () => {
        multiViewTilesPlayingAtEnd = await videosPlaying(tab);
        return multiViewTilesPlayingAtEnd === 3;
      }, 20_000);
      await tab.screenshot({ path: `${options.logFile}.watch-all.png` });
    }
    await multiViewPage?.close();
    const durationMs = Date.now() - started;
    sampling = false;
    await sampler;

    // Every viewer has gone: the stage must come back to nothing.
    let final = await sample();
    await waitUntil(async () => {
      final = await sample();
      return final.sockets === 0 && final.peerConnections === 0;
    }, 15_000);
    const perStage = Object.values(final.stages);
    const rss = stageSamples.map((s) => s.rssMiB);
    return {
      durationMs,
      joins,
      leaves,
      failedJoins,
      joinsDuringCameraRestart,
      whilePlaying: whilePlaying ?? { openPeerConnections: 0, openSockets: 0, stageListeners: 0 },
      worstAfterLeave,
      leavesWithLeftovers,
      pageErrors,
      consoleErrors,
      serverErrorLines: serverErrorLines(product.logFile),
      stageSamples,
      maxConcurrentPeerConnections: Math.max(...stageSamples.map((s) => s.peerConnections)),
      finalStage: {
        sockets: final.sockets,
        peerConnections: final.peerConnections,
        participants: perStage.reduce((sum, stage) => sum + stage.participants, 0),
        audioListeners: perStage.reduce((sum, stage) => sum + stage.audioListeners, 0),
        cameraViewers: perStage.reduce((sum, stage) => sum + stage.camera.viewers, 0),
      },
      rssMiB: { start: rss[0] ?? 0, peak: Math.max(...rss), end: rss.at(-1) ?? 0 },
      joinMs: {
        p50: percentile(joinMs, 50),
        p95: percentile(joinMs, 95),
        max: Math.max(0, ...joinMs),
      },
      stageRestarts: [...stagePids].filter((pid) => pid !== firstStagePid).length,
      cameraKills,
      whipPublisher,
      multiViewTilesPlayingAtEnd,
      processRssMiB: {
        stage: trend(processRss.stage),
        cameras: trend(processRss.cameras),
        api: trend(processRss.api),
      },
      processRssByMinute: {
        stage: [...byMinute.stage].map((value) => value ?? 0),
        cameras: [...byMinute.cameras].map((value) => value ?? 0),
        api: [...byMinute.api].map((value) => value ?? 0),
      },
      loadAverage: { start: loadAtStart, end: load() },
    };
  } finally {
    sampling = false;
    await browser?.close();
    await product.dispose();
  }
}
