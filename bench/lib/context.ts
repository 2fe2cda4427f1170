import type { Browser } from '@playwright/test';
import type { Product } from './product';

export interface BenchOptions {
  joins: number;
  cycles: number;
  maxViewers: number;
  reconnects: number;
}

/** What every part gets: the running product, one Chromium, and the run's options. */
export interface BenchContext {
  product: Product;
  browser: Browser;
  options: BenchOptions;
}
