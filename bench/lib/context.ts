import type { Browser } from '@playwright/test';
import type { Product } from '@tailcam/harness/product';

export interface BenchOptions {
  joins: number;
  cycles: number;
  maxViewers: number;
  reconnects: number;
  /** Experiment flags: fresh joins alternate without and with them (A/B under the same load). */
  ab: string[];
  /** In A/B joins: rest the pointer on the card this long before clicking. */
  hoverMs: number;
  /** In A/B joins: move the pointer on the page (away from the card) this long before clicking. */
  arrivalMs: number;
  /**
   * `--trace=PREFIX`: the join part traces three instant clicks and three after the pointer's
   * rest (Chromium's devtools.timeline, PREFIX-instant-1.json, ...) beside its figures, and says
   * what the page's main thread did in each.
   */
  trace: string | undefined;
  /**
   * `--cpu=MS`: the join part reads every process's CPU time (the product's, the browser's, its
   * own) just before each instant click on a fresh /home and MS ms after it, and says the mean.
   */
  cpuWindowMs: number | undefined;
  /** `--peer=janus`: the side-by-side comparison with Janus (bench/parts/janus.ts). */
  peer: '' | 'janus';
  /** Passes of the CPU-per-viewer ramp against the peer (each ramps both servers). */
  peerPasses: number;
  /** How long each viewer level is held once every viewer receives. */
  peerHoldMs: number;
  /** The ramp's highest level (100 by default). */
  peerMaxViewers: number;
  /** `--sections`: which of the janus part's sections run (sessions, capacity, idle; all by default). */
  peerSections: string[];
  /**
   * `--load=N`: busy processes of the bench's own. The janus part measures its sessions both
   * without them and with N (passes alternate), and its capacity ramp without; other parts run
   * under them from start to end.
   */
  addedLoad: number;
  /**
   * `--capacity-load=N`: the janus part's capacity ramps run under N busy processes of the
   * bench's own (a busy machine, measured alike run to run), started after the machine is quiet.
   */
  capacityLoad: number;
}

export const VIEWER = { username: 'bench-viewer', password: 'bench viewer password 1' };
/** A second account whose only job is the login-latency samples (its own rate-limit budget). */
export const LOGIN_VIEWER = { username: 'bench-login', password: 'bench login password 1' };

/** What every part gets: the running product, one Chromium, and the run's options. */
export interface BenchContext {
  product: Product;
  /** The bench viewer's login token (one login for the whole run: the limit is 10 a minute). */
  loginToken: string;
  browser: Browser;
  options: BenchOptions;
}
