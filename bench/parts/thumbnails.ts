/**
 * What live thumbnails cost (decision 0070): one /home open for WINDOW_MS, so that every aircraft's
 * card asks for its picture every 10 s, against the same product with nobody watching. The CPU
 * of each process `npm start` runs is read from /proc (the thumbnail process with its ffmpeg
 * children, which it has waited for), and the thumbnail process says how many pictures it
 * decoded. Then /home closes: the thumbnail process must stop watching and the cameras go idle.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { THUMBNAILS_SOCKET_FILE } from '@tailcam/protocol/thumbnails';
import { signedInContext } from '../lib/browser';
import type { BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { cpuSecondsOf, round } from '../lib/stats';
import { processLabel } from './idle';

const WINDOW_MS = 30_000;
/** The thumbnail process stops watching 4 s after the last request; the cameras 5 s after. */
const STOP_WITHIN_MS = 15_000;

/** CPU seconds of `pid` and of the children it has waited for (ffmpeg, for the thumbnails). */
function cpuWithChildren(pid: number): number | undefined {
  const own = cpuSecondsOf(pid);
  if (own === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return own + (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return own;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1).join(' ');
  } catch {
    return '';
  }
}

/** The thumbnail process's own count of pictures decoded, from its socket. */
function decodes(dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ socketPath: join(dataDir, THUMBNAILS_SOCKET_FILE), path: '/stats' }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        const parsed: unknown = JSON.parse(text);
        const count =
          typeof parsed === 'object' && parsed !== null && 'decodes' in parsed
            ? Number(parsed.decodes)
            : NaN;
        resolve(count);
      });
    })
      .on('error', reject)
      .end();
  });
}

/** Each process's share of a core over `ms` (CPU seconds / elapsed seconds). */
async function sharesOver(pids: number[], ms: number): Promise<Map<string, number>> {
  const before = new Map(pids.map((pid) => [pid, cpuWithChildren(pid)]));
  const started = performance.now();
  await new Promise((done) => setTimeout(done, ms));
  const elapsed = (performance.now() - started) / 1000;
  const shares = new Map<string, number>();
  for (const pid of pids) {
    const first = before.get(pid);
    const last = cpuWithChildren(pid);
    if (first === undefined || last === undefined) continue;
    shares.set(processLabel(commandOf(pid)), (last - first) / elapsed);
  }
  return shares;
}

const percent = (share: number) => `${round(share * 100, 2)} %`;
const total = (shares: Map<string, number>) => [...shares.values()].reduce((a, b) => a + b, 0);

export async function runThumbnails(bench: BenchContext): Promise<BenchRow[]> {
  const { product } = bench;
  await product.stage.idle();
  const pids = product.pids();
  const quiet = await sharesOver(pids, WINDOW_MS);

  const context = await signedInContext(bench);
  const page = await context.newPage();
  await page.goto('/home');
  await page
    .getByRole('img', { name: / thumbnail$/ })
    .nth(2)
    .waitFor({ timeout: 20_000 });
  const decodedBefore = await decodes(product.dataDir);
  const watched = await sharesOver(pids, WINDOW_MS);
  const decoded = (await decodes(product.dataDir)) - decodedBefore;
  await context.close();

  const closedAt = Date.now();
  let stoppedAfterMs: number | undefined;
  while (Date.now() - closedAt < STOP_WITHIN_MS + 10_000) {
    const stats = await product.stage.stats();
    const camerasIdle = Object.values(stats.stages).every((stage) => stage.camera.state !== 'live');
    if (stats.thumbnailSessions === 0 && camerasIdle) {
      stoppedAfterMs = Date.now() - closedAt;
      break;
    }
    await new Promise((done) => setTimeout(done, 500));
  }

  const thumbnailShare = watched.get('thumbnails') ?? 0;
  const added = total(watched) - total(quiet);
  const perPictureMs = decoded > 0 ? (thumbnailShare * (WINDOW_MS / 1000) * 1000) / decoded : NaN;
  return [
    {
      part: 'thumbnails',
      what: '/home open (3 aircraft, a picture every 10 s each): CPU the product adds',
      target: 'reported; the thumbnail process ≤ 5 % of a core (decision 0070)',
      median: `${percent(added)} of a core`,
      p95: '–',
      pass: thumbnailShare <= 0.05,
      note:
        `over ${WINDOW_MS / 1000} s: ${[...watched].map(([name, share]) => `${name} ${percent(share)}`).join(', ')} ` +
        `(nobody watching: ${percent(total(quiet))}); ${decoded} pictures decoded, ` +
        `${round(perPictureMs, 0)} ms of CPU each (the thumbnail process with ffmpeg)`,
    },
    {
      part: 'thumbnails',
      what: 'after /home closes: no thumbnail session, cameras idle',
      target: `≤ ${STOP_WITHIN_MS / 1000} s (4 s of demand, then the cameras' 5 s)`,
      median: stoppedAfterMs === undefined ? 'never' : `${round(stoppedAfterMs / 1000, 1)} s`,
      p95: '–',
      pass: stoppedAfterMs !== undefined && stoppedAfterMs <= STOP_WITHIN_MS,
      note: 'idle stays idle: nothing is received, drawn or decoded with nobody on /home',
    },
  ];
}
