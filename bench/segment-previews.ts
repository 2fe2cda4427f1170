/**
 * `npx tsx bench/segment-previews.ts [RUNS]`: what a segment's preview costs (decision 0084): the
 * recorder's decode (`decodeKeyFrame`, one ffmpeg per picture, 160 px wide) of one key frame, run
 * RUNS times (20) one after another for each kind of key frame a recording starts with: VP8 at
 * the synthetic camera's 640x360, H.264 at 640x360 and at a real encoder's 1280x720 (ffmpeg's
 * `testsrc2` pattern, encoded once by ffmpeg itself). Per decode: the CPU time of the ffmpeg
 * process (user + system, from bash's `times` in a wrapper that runs it, so the product's own
 * spawn and arguments are what is measured), the wall time, and the JPEG's bytes; medians and
 * maxima. Prints the load average before and after. Not part of `npm run bench`: it measures one
 * subprocess, and its figures are in docs/benchmarks/recordings.md.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAverage } from '@tailcam/harness/load-average';
import { decodeKeyFrame, type EncodedKeyFrame } from '../local-stage/src/codecs/decode-key-frame';
import { PREVIEW_WIDTH } from '../local-stage/src/recorder/segment-previews';

const RUNS = Number(process.argv[2] ?? 20);

/** One key frame of ffmpeg's test pattern at `size`: VP8 out of its IVF file, or H.264 Annex B. */
function keyFrame(codec: 'vp8' | 'h264', width: number, height: number): EncodedKeyFrame {
  const encoder =
    codec === 'vp8' ? ['-c:v', 'libvpx', '-f', 'ivf'] : ['-c:v', 'libx264', '-f', 'h264'];
  const result = spawnSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
    ...['-i', `testsrc2=size=${width}x${height}:rate=30`, '-frames:v', '1'],
    ...encoder,
    'pipe:1',
  ]);
  if (result.status !== 0) throw new Error(`ffmpeg could not encode: ${String(result.stderr)}`);
  const data = result.stdout;
  // IVF: a 32-byte file header, then a 12-byte frame header before the frame.
  return codec === 'vp8' ? { codec, data: data.subarray(44), width, height } : { codec, data };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** bash's `times`: its children's user and system time, second line ("0m0.031s 0m0.008s"). */
function childCpuMs(text: string): number {
  const line = text.trim().split('\n')[1] ?? '';
  return line
    .split(/\s+/)
    .map((part) => /^(\d+)m([\d.]+)s$/.exec(part))
    .reduce(
      (sum, match) => sum + (match ? Number(match[1]) * 60_000 + Number(match[2]) * 1000 : 0),
      0,
    );
}

const dir = mkdtempSync(join(tmpdir(), 'tailcam-bench-previews-'));
const timesFile = join(dir, 'times');
const wrapper = join(dir, 'ffmpeg-timed');
writeFileSync(
  wrapper,
  `#!/bin/bash\nffmpeg "$@"\nstatus=$?\ntimes > "${timesFile}"\nexit $status\n`,
);
chmodSync(wrapper, 0o755);

console.log(`load average before: ${loadAverage()}`);
try {
  for (const [codec, width, height] of [
    ['vp8', 640, 360],
    ['h264', 640, 360],
    ['h264', 1280, 720],
  ] as const) {
    const frame = keyFrame(codec, width, height);
    const cpu: number[] = [];
    const wall: number[] = [];
    const bytes: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const startedAt = performance.now();
      const jpeg = await decodeKeyFrame(frame, {
        ffmpeg: wrapper,
        width: { min: PREVIEW_WIDTH, max: PREVIEW_WIDTH },
      });
      wall.push(performance.now() - startedAt);
      cpu.push(childCpuMs(readFileSync(timesFile, 'utf8')));
      bytes.push(jpeg.length);
    }
    console.log(
      `${codec} ${width}x${height} (key frame ${frame.data.length} B), ${RUNS} decodes: ` +
        `CPU median ${median(cpu).toFixed(0)} ms (max ${Math.max(...cpu).toFixed(0)}), ` +
        `wall median ${median(wall).toFixed(0)} ms (max ${Math.max(...wall).toFixed(0)}), ` +
        `JPEG ${median(bytes)} B (${Math.min(...bytes)}-${Math.max(...bytes)})`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`load average after: ${loadAverage()}`);
