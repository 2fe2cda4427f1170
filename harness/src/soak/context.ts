/** What every part of a soak run shares: the product, the browser, the options and the errors seen. */
import type { Browser } from '@playwright/test';
import type { Product } from '../product';
import type { SoakBrowserName, ViewerBrowser } from './viewer-pages';

export interface SoakOptions {
  /** The instance: its name, ports and log file. */
  name: string;
  port: number;
  stagePort: number;
  logFile: string;
  /** Concurrent viewers (each a page of the viewers' browser). */
  viewers: number;
  /** The viewers' browser, and the Watch all tab's (default Chromium). */
  browser?: SoakBrowserName;
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
  /**
   * A browser WHIP publisher (Eyevinn's client, the camera its page draws) on N954AS: on air for
   * half of each such period, then gone.
   */
  whipPublisherEveryMs?: number;
  /** More environment for the instance (e.g. MALLOC_ARENA_MAX). */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface SoakRun {
  options: SoakOptions;
  product: Product;
  /** Chromium: the WHIP publisher's page (an encoder, not a viewer). */
  browser: Browser;
  /** The viewers' and the Watch all tab's browser (Chromium's too, unless Firefox is asked for). */
  viewerBrowser: ViewerBrowser;
  loginToken: string;
  /** Date.now() when the run began. */
  started: number;
  log: (line: string) => void;
  pageErrors: string[];
  consoleErrors: string[];
  /** Date.now() of each kill of the camera process. */
  cameraKillTimes: number[];
  /** Whether the viewers have finished: the churn beside them stops then. */
  viewersDone: boolean;
}

/** Seconds since the run began, for the log. */
export function elapsed(run: SoakRun): string {
  return `${Math.round((Date.now() - run.started) / 1000)} s`;
}

/** Every aircraft has a publisher on air (a camera or an encoder). */
export async function allOnAir(run: SoakRun): Promise<boolean> {
  return Object.values((await run.product.stage.stats()).stages).every(
    (stage) => stage.publisher !== null,
  );
}

/** Waits `ms`, or less if the viewers finish meanwhile. */
export async function pause(run: SoakRun, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!run.viewersDone && Date.now() < until) await new Promise((done) => setTimeout(done, 250));
}
