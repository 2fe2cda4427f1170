/**
 * Initial JS of the web app: the entry chunk plus the chunks web/dist/index.html preloads,
 * gzipped and summed by the measure the build's test holds to the budget
 * (`@tailcam/web/initial-js`). The stage SDK script (`/sdk/stage.js`) is served by the API, not
 * part of the app's bundle: listed apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '@tailcam/harness/product';
import { INITIAL_JS_BUDGET_BYTES, measureInitialJs } from '@tailcam/web/initial-js';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const KB = 1024;

export async function runBundle(_bench?: BenchContext): Promise<BenchRow[]> {
  const initial = measureInitialJs(join(ROOT, 'web', 'dist'));
  const count = initial.files.length;
  const sdkBytes = gzipSync(readFileSync(join(ROOT, 'local-stage', 'dist', 'stage-sdk.js')), {
    level: 9,
  }).length;
  return [
    {
      part: 'bundle',
      what: `initial JS of the web app, gzip (${count} file${count === 1 ? '' : 's'})`,
      target: `≤ ${INITIAL_JS_BUDGET_BYTES / KB} KB`,
      median: `${round(initial.gzipBytes / KB, 1)} KB`,
      p95: '–',
      pass: initial.gzipBytes <= INITIAL_JS_BUDGET_BYTES,
      note: `plus /sdk/stage.js (local stage SDK) ${round(sdkBytes / KB, 1)} KB gzip, loaded by index.html from the API`,
    },
  ];
}
