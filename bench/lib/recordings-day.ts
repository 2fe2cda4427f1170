/**
 * The Recordings page with a day of three aircraft (decision 0086), for the rewind part
 * (parts/rewind.ts): the day synthesized (synthetic-recordings.ts) in the data directory of a
 * second instance of the bench's own (BENCH_PORT + 20, its stage + 21), the list's first answer
 * timed from here, then TIMELINE_ROUNDS navigations to /recordings, each timed from navigation to
 * the three timelines' sliders holding a recorded bar, with the list's own Resource Timing.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadAverage } from '@tailcam/harness/load-average';
import { Product } from '@tailcam/harness/product';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { VIEWER, type BenchContext } from './context';
import { benchPort } from './janus';
import { pageProbe } from './page-probe';
import { writeSyntheticDay, type SyntheticDay } from './synthetic-recordings';

export const TIMELINE_ROUNDS = 5;
export const TIMELINE_HOURS = 24;
export const SEGMENT_MS = 4_000;

export interface Timeline {
  coldMs: number;
  bodyBytes: number;
  gzipBytes: number;
  segmentsListed: number;
  drawnMs: number[];
  listMs: number[];
  listEndMs: number[];
  load: string;
}

/** The list and /recordings on a second instance whose recordings are a synthesized day. */
export async function measureRecordingsDay(
  bench: BenchContext,
  real: Pick<SyntheticDay, 'meta' | 'segmentFile' | 'previewFile'>,
): Promise<Timeline> {
  const port = benchPort() + 20;
  const product = new Product({
    name: 'bench-timeline',
    port,
    stagePort: port + 1,
    logFile: join(tmpdir(), `tailcam-bench-timeline-${port}.log`),
    env: { CAMERA_SLEEP_AFTER_MS: '60000' },
  });
  try {
    const perAircraft = writeSyntheticDay({
      root: join(product.dataDir, 'recordings'),
      stageIds: STREAM_IDS,
      hours: TIMELINE_HOURS,
      endMs: Date.now(),
      segmentMs: SEGMENT_MS,
      ...real,
    });
    product.addViewer(VIEWER);
    await product.start();
    const token = await product.loginToken(VIEWER);
    const load = loadAverage();
    const started = performance.now();
    const response = await fetch(`${product.baseUrl}/api/recordings`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new Error(`/api/recordings answered ${response.status}`);
    const body = await response.text();
    const coldMs = performance.now() - started;
    const listed = (JSON.parse(body) as { aircraft: { spans: { segments: unknown[] }[] }[] })
      .aircraft;
    const segmentsListed = listed
      .flatMap((aircraft) => aircraft.spans)
      .reduce((sum, span) => sum + span.segments.length, 0);
    if (segmentsListed !== perAircraft * STREAM_IDS.length) {
      throw new Error(`listed ${segmentsListed} of ${perAircraft * STREAM_IDS.length} segments`);
    }

    const context = await bench.browser.newContext({
      baseURL: product.baseUrl,
      viewport: { width: 1280, height: 720 },
    });
    await context.addInitScript(await pageProbe(token));
    const drawnMs: number[] = [];
    const listMs: number[] = [];
    const listEndMs: number[] = [];
    try {
      for (let round = 0; round < TIMELINE_ROUNDS; round += 1) {
        const page = await context.newPage();
        await page.goto('/recordings', { waitUntil: 'commit' });
        const drawn = await page.waitForFunction(
          (count) => {
            const sliders = [
              ...document.querySelectorAll('[role="slider"][aria-label^="Timeline of "]'),
            ];
            const ready =
              sliders.length === count &&
              sliders.every((slider) => slider.querySelector('[data-testid="recorded-bar"]'));
            return ready ? performance.now() : false;
          },
          STREAM_IDS.length,
          { polling: 'raf', timeout: 60_000 },
        );
        drawnMs.push(Number(await drawn.jsonValue()));
        const list = await page.evaluate(() =>
          (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
            .filter((entry) => new URL(entry.name).pathname === '/api/recordings')
            .map((entry) => ({ start: entry.startTime, end: entry.responseEnd })),
        );
        listMs.push((list[0]?.end ?? NaN) - (list[0]?.start ?? NaN));
        listEndMs.push(list[0]?.end ?? NaN);
        await page.close();
      }
    } finally {
      await context.close();
    }
    return {
      coldMs,
      bodyBytes: Buffer.byteLength(body),
      gzipBytes: gzipSync(body).length,
      segmentsListed,
      drawnMs,
      listMs,
      listEndMs,
      load: `${load} → ${loadAverage()}`,
    } satisfies Timeline;
  } finally {
    await product.dispose();
  }
}
