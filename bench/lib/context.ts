import type { Browser } from '@playwright/test';
import type { Product } from './product';

export interface BenchOptions {
  joins: number;
  cycles: number;
  maxViewers: number;
  reconnects: number;
  /** Experiment flags: fresh joins alternate without and with them (A/B under the same load). */
  ab: string[];
  /** In A/B joins: rest the pointer on the card this long before clicking. */
  hoverMs: number;
}

/** What every part gets: the running product, one Chromium, and the run's options. */
export interface BenchContext {
  product: Product;
  browser: Browser;
  options: BenchOptions;
}
