/**
 * The soak's instruments: in each viewer's page, the connections and SDK listeners still open
 * (page/soak-instruments.ts) and whether its videos advance; around the product, the stage's
 * stats and every process's memory, sampled every 2 s, and the stage's pid (a restart of the
 * forwarding process must never happen).
 */
import { readFileSync } from 'node:fs';
import type { InPageCounts, Playback } from '../page/soak-instruments';
import { bundleForPage } from '../page-scripts';
import { pollUntil } from '../poll';
import type { Product } from '../product';
import type { StageStats } from '../stage-control';
import type { ViewerPage } from './viewer-pages';

export type { InPageCounts };

/** The in-page instruments, for every document a page loads, before its own scripts. */
export function instrumentsScript(): Promise<string> {
  return bundleForPage('harness/src/page/soak-instruments.ts');
}

/** Mirrors the SDK's Stage listeners from now on (call once the app has loaded the SDK). */
export function watchStageListeners(page: ViewerPage): Promise<void> {
  return page.evaluate(() => window.TailcamSoak.watchStageListeners());
}

export function inPageCounts(page: ViewerPage): Promise<InPageCounts> {
  return page.evaluate(() => window.TailcamSoak.counts());
}

export const NO_COUNTS: InPageCounts = {
  openPeerConnections: 0,
  openSockets: 0,
  stageListeners: 0,
};

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** How many of the page's videos still advance (their frames grow over a second and a half). */
export async function videosPlaying(page: ViewerPage): Promise<number> {
  const framesPerVideo = () => page.evaluate(() => window.TailcamSoak.framesPerVideo());
  const before = await framesPerVideo();
  await wait(1_500);
  const after = await framesPerVideo();
  return after.filter((count, index) => count > (before[index] ?? 0) + 5).length;
}

/** Until the player's video has decoded frames and its time moves. */
export function waitForPlayback(page: ViewerPage, timeoutMs: number): Promise<boolean> {
  let first: Playback | undefined;
  return pollUntil(async () => {
    const now = await page.evaluate(() => window.TailcamSoak.playback());
    if (now === null || now.frames === 0) return false;
    // A new track (a publisher taking over, a camera back after a kill) loads the element
    // anew: its frame count and time start again from 0, so the baseline starts again too
    // (else, with N954AS's publisher changing every few seconds, no track outran the last one).
    if (first === undefined || now.frames < first.frames || now.time < first.time) first = now;
    return now.frames > first.frames + 3 && now.time > first.time;
  }, timeoutMs);
}

/** Resident memory of a process over the run, in MiB. */
export interface MemoryTrend {
  start: number;
  peak: number;
  end: number;
}

export interface StageSample {
  atMs: number;
  sockets: number;
  peerConnections: number;
  rssMiB: number;
}

type ProcessName = 'stage' | 'cameras' | 'api';

function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kiB = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kiB === undefined ? undefined : Math.round(Number(kiB) / 1024);
  } catch {
    return undefined; // gone meanwhile
  }
}

export function trend(values: number[]): MemoryTrend {
  return { start: values[0] ?? 0, peak: Math.max(0, ...values), end: values.at(-1) ?? 0 };
}

/** The stage's stats and the processes' memory, sampled every 2 s from start() to stop(). */
export class Sampler {
  readonly stageSamples: StageSample[] = [];
  readonly processRss: Record<ProcessName, number[]> = { stage: [], cameras: [], api: [] };
  /** Each process's RSS (MiB) by minute of the run: the highest sample of each minute. */
  readonly byMinute: Record<ProcessName, number[]> = { stage: [], cameras: [], api: [] };
  readonly stagePids = new Set<number>();
  readonly firstStagePid: number | undefined;
  private sampling = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly product: Product,
    private readonly started: number,
  ) {
    this.firstStagePid = product.stagePid();
  }

  private sampleProcesses(): void {
    const stagePid = this.product.stagePid();
    if (stagePid !== undefined) this.stagePids.add(stagePid);
    const pids: [ProcessName, number | undefined][] = [
      ['stage', stagePid],
      ['cameras', this.product.camerasPid()],
      ['api', this.product.apiPid()],
    ];
    for (const [name, pid] of pids) {
      const rss = rssOf(pid);
      if (rss === undefined) continue;
      this.processRss[name].push(rss);
      const minute = Math.floor((Date.now() - this.started) / 60_000);
      this.byMinute[name][minute] = Math.max(this.byMinute[name][minute] ?? 0, rss);
    }
  }

  /** One sample now; the stage's stats it read. */
  async sample(): Promise<StageStats> {
    this.sampleProcesses();
    const stats = await this.product.stage.stats();
    this.stageSamples.push({
      atMs: Date.now() - this.started,
      sockets: stats.sockets,
      peerConnections: stats.peerConnections,
      rssMiB: Math.round(stats.process.rssBytes / 2 ** 20),
    });
    return stats;
  }

  start(): void {
    this.sampling = true;
    this.loop = (async () => {
      while (this.sampling) {
        await new Promise((done) => setTimeout(done, 2_000));
        if (this.sampling) await this.sample().catch(() => {});
      }
    })();
  }

  async stop(): Promise<void> {
    this.sampling = false;
    await this.loop;
  }

  /** Times the stage was seen with a pid other than its first. */
  stageRestarts(): number {
    return [...this.stagePids].filter((pid) => pid !== this.firstStagePid).length;
  }
}
