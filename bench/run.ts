/**
 * `npm run bench [-- --only=join,g2g] [--joins=20] [--cycles=300] [--max-viewers=16]
 * [--reconnects=10] [--json=FILE] [--peer=janus [--passes=3]] [--hold=15] [--peer-viewers=100]
 * [--load=N] [--sections=sessions,capacity,idle] [--trace=PREFIX]` (`--trace`: the join part
 * also traces six clicks into PREFIX-*.json and says what the page's main thread did in each;
 * `--hold`, `--peer-viewers`: the receive-only viewers' levels of the janus and keyframes parts;
 * `--load`: N busy processes of the bench's own
 * for the whole run, but for the janus part, which measures its sessions both without and with
 * them, pass by pass; `--sections`: the janus part's sections, all three by default):
 * measures the targets of docs/benchmarks.md against the
 * production build (built by the npm script) started as `npm start` starts it, with the local
 * stage, in headless Chromium, and prints target vs measured. Every loop is bounded; the whole run
 * takes a few minutes. What each figure means: docs/benchmarks.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser } from '@playwright/test';
import { chromiumExecutable, launchChromium } from '@tailcam/harness/chromium';
import { Product } from '@tailcam/harness/product';
import { LOGIN_VIEWER, VIEWER, type BenchContext, type BenchOptions } from './lib/context';
import type { BenchRow, PartOutcome } from './lib/result';
import { loadAverage } from '@tailcam/harness/load-average';
import { addLoad } from './lib/added-load';
import { benchPort, peerPagePort } from './lib/janus';
import { runBundle } from './parts/bundle';
import { runCapacity } from './parts/capacity';
import { runCycles } from './parts/cycles';
import { runFlight } from './parts/flight';
import { runG2g } from './parts/g2g';
import { CAMERA_SLEEP_AFTER_MS, runIdle } from './parts/idle';
import { runJanus } from './parts/janus';
import { runJoin } from './parts/join';
import { runJoinFirefox } from './parts/join-firefox';
import { runKeyFrames } from './parts/keyframes';
import { runRecording } from './parts/recording';
import { runLoss } from './parts/loss';
import { runMetrics } from './parts/metrics';
import { runPlayer } from './parts/player';
import { runPublish } from './parts/publish';
import { runReconnect } from './parts/reconnect';
import { runRewind } from './parts/rewind';
import { runThumbnails } from './parts/thumbnails';
import { runToken } from './parts/token';
import { runCamera } from './parts/camera';
import { runForwarding } from './parts/forwarding';
import { runWebhooks } from './parts/webhooks';

const PARTS: Record<string, (bench: BenchContext) => Promise<BenchRow[]>> = {
  bundle: runBundle,
  join: runJoin,
  'join-firefox': runJoinFirefox,
  loss: runLoss,
  g2g: runG2g,
  reconnect: runReconnect,
  capacity: runCapacity,
  token: runToken,
  cycles: runCycles,
  idle: runIdle,
  thumbnails: runThumbnails,
  player: runPlayer,
  publish: runPublish,
  janus: runJanus,
  keyframes: runKeyFrames,
  recording: runRecording,
  rewind: runRewind,
  flight: runFlight,
  metrics: runMetrics,
};
/**
 * Run only when asked for (`--only=…`): janus installs Janus and takes minutes (or `--peer=janus`);
 * rewind records for a minute, presses a dozen times and starts a second instance (~4 minutes);
 * join-firefox times the click in Firefox (harness/src/firefox.ts); flight watches the flight data
 * (~1 minute); metrics opens 100 receive-only viewers to time the scrapes (~1 minute).
 */
const ON_REQUEST = new Set(['janus', 'rewind', 'join-firefox', 'flight', 'metrics']);
/**
 * Parts that measure the API's code in processes of their own, with neither the product nor a
 * browser (neither is started when only these are asked for); run only when asked for too.
 * webhooks: the webhook queue's disk, delivery and dead-consumer figures (~1 minute).
 * forwarding: a viewer's layer switch per VP8 packet, before and after a move (~10 s).
 * camera: a synthetic camera's frame drawn, at two sizes (~10 s).
 */
const WITHOUT_PRODUCT: Record<string, () => Promise<BenchRow[]>> = {
  webhooks: runWebhooks,
  forwarding: runForwarding,
  camera: runCamera,
};

/** The command line, read with node:util's parseArgs (strict: an unknown flag is an error). */
function benchArgs(argv: string[]): {
  only: string[];
  options: BenchOptions;
  load: number;
  json?: string;
} {
  const text = { type: 'string' } as const;
  const { values: flags } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      only: text,
      joins: text,
      cycles: text,
      'max-viewers': text,
      reconnects: text,
      hover: text,
      arrival: text,
      ab: text,
      peer: text,
      passes: text,
      hold: text,
      'peer-viewers': text,
      load: text,
      'capacity-load': text,
      sections: text,
      json: text,
      trace: text,
      cpu: text,
    },
  });
  const count = (name: keyof typeof flags, fallback: number, max: number) => {
    const value = Number(flags[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`--${name} must be an integer from 1 to ${max}`);
    }
    return value;
  };
  const peer = flags.peer ?? '';
  if (peer !== '' && peer !== 'janus') throw new Error(`--peer must be janus, not ${peer}`);
  const defaultParts =
    peer === 'janus' ? ['janus'] : Object.keys(PARTS).filter((name) => !ON_REQUEST.has(name));
  const only = (flags.only?.split(',') ?? defaultParts).filter((name) => name !== '');
  const unknown = only.filter((name) => !(name in PARTS) && !(name in WITHOUT_PRODUCT));
  if (unknown.length > 0) {
    const parts = [...Object.keys(PARTS), ...Object.keys(WITHOUT_PRODUCT)];
    throw new Error(`Unknown part(s) ${unknown.join(', ')}; parts: ${parts.join(', ')}`);
  }
  const load = flags.load === undefined ? 0 : count('load', 0, 16);
  const sections = (flags.sections ?? 'sessions,capacity,idle').split(',').filter(Boolean);
  const unknownSections = sections.filter(
    (section) => !['sessions', 'capacity', 'idle'].includes(section),
  );
  if (unknownSections.length > 0) {
    throw new Error(`--sections: sessions, capacity or idle, not ${unknownSections.join(', ')}`);
  }
  return {
    only,
    load,
    json: flags.json,
    options: {
      joins: count('joins', 20, 200),
      cycles: count('cycles', 300, 1000),
      maxViewers: count('max-viewers', 16, 32),
      reconnects: count('reconnects', 10, 50),
      hoverMs: Number(flags.hover ?? 0),
      arrivalMs: Number(flags.arrival ?? 0),
      trace: flags.trace,
      cpuWindowMs: flags.cpu === undefined ? undefined : count('cpu', 150, 2000),
      ab: (flags.ab ?? '').split(',').filter((flag) => flag !== ''),
      peer: peer === 'janus' || only.includes('janus') ? 'janus' : '',
      peerPasses: count('passes', 3, 10),
      peerHoldMs: count('hold', 15, 120) * 1000,
      peerMaxViewers: count('peer-viewers', 100, 200),
      peerSections: sections,
      addedLoad: load,
      capacityLoad: flags['capacity-load'] === undefined ? 0 : count('capacity-load', 0, 16),
    },
  };
}

function machine(): string {
  const model = cpus()[0]?.model ?? 'unknown CPU';
  let chromium: string;
  try {
    chromium = execFileSync(chromiumExecutable(), ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    chromium = 'Chromium (version unknown)';
  }
  return `${cpus().length} cores (${model}), ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${chromium}`;
}

function printTable(rows: BenchRow[]): void {
  const header = ['part', 'what', 'target', 'median', 'p95/p99', 'result'];
  const body = rows.map((row) => [
    row.part,
    row.what,
    row.target,
    row.median,
    row.p95,
    row.pass === undefined ? 'info' : row.pass ? 'PASS' : 'MISS',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cells of body) console.log(line(cells));
  console.log('');
  for (const row of rows) if (row.note) console.log(`- ${row.part}, ${row.what}: ${row.note}`);
}

const { only, options, load: addedLoad, json } = benchArgs(process.argv.slice(2));
if (options.peer === 'janus') {
  // Installs Janus and GStreamer when it can; otherwise it says loudly what is skipped (exit 3).
  const ensured = spawnSync(process.execPath, ['scripts/ensure-janus.mjs'], { stdio: 'inherit' });
  if (ensured.status !== 0) {
    console.error('The Janus comparison is SKIPPED (see above); nothing else was asked for.');
    process.exit(ensured.status === 3 ? 0 : 1);
  }
}
const startedAt = Date.now();
// The janus part adds its load itself, to half of its sessions (bench/parts/janus.ts).
const spinners = addedLoad > 0 && !only.includes('janus') ? addLoad(addedLoad) : undefined;
console.log(`Tailcam bench: ${only.join(', ')}`);
if (spinners) {
  console.log(`added load: ${spinners.processes} busy process(es) of the bench's own, to its end`);
}
console.log(`machine: ${machine()}; load average ${loadAverage()}`);
if ((loadavg()[0] ?? 0) > cpus().length) {
  console.log(
    `note: the load average is above the ${cpus().length} cores: other work is running, so the ` +
      'timings below are pessimistic (medians help; the load is printed next to every part).',
  );
}

// The benchmark's own instance (BENCH_PORT, BENCH_STAGE_PORT: other ports).
const apiPort = benchPort();
const product = new Product({
  name: 'bench',
  port: apiPort,
  stagePort: Number(process.env.BENCH_STAGE_PORT ?? 29091),
  // The metrics part scrapes it (bench/parts/metrics.ts).
  metricsPort: Number(process.env.BENCH_METRICS_PORT ?? 29092),
  logFile: join(tmpdir(), `tailcam-bench-${apiPort}.log`),
  // The receive-only viewers (the Janus comparison, key frames): up to 100 sessions of the bench's
  // one account, on a page of the bench's own origin (bench/lib/peer-sessions.ts); the stage's
  // limit (64) raised to match.
  env: {
    // The product's own: cameras that sleep a minute after the last viewer (the idle part waits
    // for it; the harness's default, never, is for tests). CAMERA_SLEEP_AFTER_MS=0 in the bench's
    // environment measures cameras that never sleep.
    CAMERA_SLEEP_AFTER_MS: process.env.CAMERA_SLEEP_AFTER_MS ?? String(CAMERA_SLEEP_AFTER_MS),
    ...(options.peer === 'janus' || only.includes('keyframes') || only.includes('metrics')
      ? {
          STAGE_SESSIONS_PER_USER: '200',
          STAGE_MAX_SESSIONS: '200',
          CORS_ORIGINS: `http://127.0.0.1:${peerPagePort()}`,
          // The token's events_url the API's own, absolute: the peer page's socket goes there.
          PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
        }
      : {}),
  },
});
const outcomes: Record<string, PartOutcome> = {};
const rows: BenchRow[] = [];
let browser: Browser | undefined;
try {
  let bench: BenchContext | undefined;
  if (only.some((name) => name in PARTS)) {
    product.addViewer(VIEWER);
    product.addViewer(LOGIN_VIEWER);
    await product.start();
    browser = await launchChromium();
    bench = { product, loginToken: await product.loginToken(VIEWER), browser, options };
  }
  for (const name of only) {
    const part = PARTS[name];
    const context = bench;
    const run = WITHOUT_PRODUCT[name] ?? (part && context ? () => part(context) : undefined);
    if (!run) continue;
    const load = { start: loadAverage(), end: '' };
    const partStart = Date.now();
    console.log(`- ${name} (load average ${load.start}) ...`);
    let partRows: BenchRow[];
    try {
      partRows = await run();
    } catch (error) {
      partRows = [
        {
          part: name,
          what: 'the part failed',
          target: '',
          median: '–',
          p95: '–',
          pass: false,
          note: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error),
        },
      ];
    }
    load.end = loadAverage();
    const seconds = Math.round((Date.now() - partStart) / 1000);
    outcomes[name] = { rows: partRows, load, seconds };
    for (const row of partRows)
      row.note = `${row.note}${row.note ? '; ' : ''}load ${load.start} → ${load.end}`;
    rows.push(...partRows);
    console.log(`  done in ${seconds} s`);
  }
} finally {
  await browser?.close();
  await product.dispose();
  spinners?.stop();
}
console.log('');
printTable(rows);
console.log(
  `\n${Math.round((Date.now() - startedAt) / 1000)} s in all; load average now ${loadAverage()}`,
);
if (json)
  writeFileSync(json, `${JSON.stringify({ machine: machine(), options, outcomes }, null, 2)}\n`);
process.exitCode = rows.some((row) => row.pass === false) ? 1 : 0;
