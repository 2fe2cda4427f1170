/**
 * Initial JS of the web app: every script and module preload that web/dist/index.html loads from
 * the build, gzipped (zlib level 9, what a server would send precompressed). The stage SDK
 * script (`/sdk/stage.js`) is served by the API, not part of the app's bundle: listed apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '@tailcam/harness/product';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';

const gzipKb = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length / 1024;

export async function runBundle(_bench?: BenchContext): Promise<BenchRow[]> {
  const dist = join(ROOT, 'web', 'dist');
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const sources = [
    ...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g),
  ].map((match) => match[1] ?? '');
  const appFiles = sources.filter((source) => source.startsWith('/assets/'));
  const appKb = appFiles.reduce(
    (sum, source) => sum + gzipKb(readFileSync(join(dist, source.replace(/^\//, '')))),
    0,
  );
  const sdkKb = gzipKb(readFileSync(join(ROOT, 'local-stage', 'dist', 'stage-sdk.js')));
  return [
    {
      part: 'bundle',
      what: `initial JS of the web app, gzip (${appFiles.length} file${appFiles.length === 1 ? '' : 's'})`,
      target: '≤ 100 KB',
      median: `${round(appKb, 1)} KB`,
      p95: '–',
      pass: appFiles.length > 0 && appKb <= 100,
      note: `plus /sdk/stage.js (local stage SDK) ${round(sdkKb, 1)} KB gzip, loaded by index.html from the API`,
    },
  ];
}
