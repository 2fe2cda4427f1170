/**
 * `npx tsx bench/recording-downloads.ts SPAN_DIR [SPAN_DIR...]`: what a recording download costs
 * (decision 0081), for each span directory the recorder wrote: the remux the API
 * does (remux-worker.ts in a worker thread, as the download runs it) and `ffmpeg -c copy` over
 * the concat demuxer (each segment's duration set from its offsets, as the remux places them), the
 * two candidates; wall time and CPU seconds (the process's or ffmpeg's), three runs each, the
 * output thrown away. Then, with `--health`, ten downloads of the first span at once over HTTP,
 * from a server on this thread answering `/health` as the API does, polled every 100 ms: the
 * p95 and max of its answers (the target: 50 ms p95). Prints the machine's load with each line. Not part of `npm run bench`: it
 * needs a recorded span, and what it decided is in the decision record.
 */
import { spawnSync } from 'node:child_process';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAverage } from '@tailcam/harness/load-average';
import { parseSegmentFileName, parseSpanMeta } from '@tailcam/protocol/recordings';
import { RemuxStream } from '../server/src/recordings/remux-stream';

const RUNS = 3;

interface Span {
  dir: string;
  container: 'webm' | 'mp4';
  segments: { name: string; offsetMs: number; durationMs: number }[];
}

function readSpan(dir: string): Span {
  const meta = parseSpanMeta(readFileSync(join(dir, 'span.json'), 'utf8'));
  if (!meta) throw new Error(`${dir}: no span.json`);
  const segments = readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const parsed = parseSegmentFileName(name);
      return parsed ? [{ name, offsetMs: parsed.offsetMs, durationMs: parsed.durationMs }] : [];
    });
  return { dir, container: meta.container, segments };
}

async function worker(span: Span): Promise<{ wallMs: number; cpuS: number; bytes: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const stream = remuxOf(span, 60_000);
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).byteLength;
  const used = process.cpuUsage(cpu);
  return {
    wallMs: performance.now() - started,
    cpuS: (used.user + used.system) / 1e6,
    bytes,
  };
}

function ffmpeg(span: Span): { wallMs: number; cpuS: number; bytes: number } {
  const list = join(tmpdir(), `tailcam-concat-${process.pid}.txt`);
  const lines = ['ffconcat version 1.0'];
  span.segments.forEach((segment, index) => {
    const next = span.segments[index + 1];
    lines.push(`file '${join(span.dir, segment.name)}'`);
    const durationMs = next ? next.offsetMs - segment.offsetMs : segment.durationMs;
    lines.push(`duration ${(durationMs / 1000).toFixed(3)}`);
  });
  writeFileSync(list, lines.join('\n') + '\n');
  const format =
    span.container === 'webm' ? '-f webm' : '-f mp4 -movflags frag_keyframe+empty_moov';
  const started = performance.now();
  // bash's `times` gives the children's user and system seconds.
  const run = spawnSync(
    'bash',
    [
      '-c',
      `ffmpeg -v error -f concat -safe 0 -i '${list}' -c copy ${format} pipe:1 | wc -c; times`,
    ],
    { encoding: 'utf8' },
  );
  const wallMs = performance.now() - started;
  const [bytesLine, , childrenLine] = run.stdout.trim().split('\n');
  const seconds = [...(childrenLine ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
    (match) => Number(match[1]) * 60 + Number(match[2]),
  );
  return { wallMs, cpuS: seconds.reduce((a, b) => a + b, 0), bytes: Number(bytesLine) };
}

function remuxOf(span: Span, stallMs: number): RemuxStream {
  const first = span.segments[0]!.offsetMs;
  return new RemuxStream(
    {
      dir: span.dir,
      container: span.container,
      segments: span.segments.map((s) => ({
        name: s.name,
        shiftSeconds: (s.offsetMs - first) / 1000,
      })),
    },
    stallMs,
  );
}

/** Ten downloads of `span` at once, and /health's answers meanwhile, from one server here. */
async function healthUnderDownloads(span: Span): Promise<void> {
  const server = createServer((request, response) => {
    if (request.url === '/health') {
      response.setHeader('content-type', 'application/json');
      response.end('{"status":"ok"}');
      return;
    }
    void pipeline(remuxOf(span, 30_000), response).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fetchBytes = (path: string) =>
    new Promise<number>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
        response.on('end', () => resolve(bytes));
        response.on('error', reject);
      }).on('error', reject);
    });
  let running = true;
  const started = performance.now();
  const downloads = Promise.all(Array.from({ length: 10 }, () => fetchBytes('/download'))).finally(
    () => (running = false),
  );
  const latencies: number[] = [];
  while (running) {
    const at = performance.now();
    await fetchBytes('/health');
    latencies.push(performance.now() - at);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const sizes = await downloads;
  server.close();
  latencies.sort((a, b) => a - b);
  const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1] ?? 0;
  console.log(
    `  health under 10 downloads (${sizes[0]} B each, ${(performance.now() - started).toFixed(0)} ms): p95 ${p95.toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms, ${latencies.length} answers (load ${loadAverage()})`,
  );
}

const dirs = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (process.argv.includes('--health')) {
  const span = readSpan(dirs[0]!);
  for (let run = 1; run <= RUNS; run += 1) await healthUnderDownloads(span);
  process.exit(0);
}
for (const dir of dirs) {
  const span = readSpan(dir);
  const seconds = span.segments.reduce((sum, s) => sum + s.durationMs, 0) / 1000;
  console.log(`${dir}: ${span.segments.length} segments, ${seconds.toFixed(0)} s`);
  for (let run = 1; run <= RUNS; run += 1) {
    const a = await worker(span);
    console.log(
      `  worker  run ${run}: ${a.wallMs.toFixed(0)} ms wall, ${a.cpuS.toFixed(2)} s CPU, ${a.bytes} B (load ${loadAverage()})`,
    );
    const b = ffmpeg(span);
    console.log(
      `  ffmpeg  run ${run}: ${b.wallMs.toFixed(0)} ms wall, ${b.cpuS.toFixed(2)} s CPU, ${b.bytes} B (load ${loadAverage()})`,
    );
  }
}
