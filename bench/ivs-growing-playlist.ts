/**
 * `npx tsx bench/ivs-growing-playlist.ts`: how hls.js (the light build the app ships) plays an
 * Amazon IVS recording still being written, as the live player's rewind does (decision 0088,
 * "Amazon IVS"), in headless Chromium. ffmpeg (`FFMPEG_PATH`, else `ffmpeg`) makes 72 s of H.264
 * in fMP4 HLS, 6 s segments with a key frame every 2 s, as IVS's default writes them; a server on
 * this thread serves it as a recording in progress: an event playlist listing 30 s at first, one
 * more segment every 6 s (each "uploaded" once whole), `#EXT-X-ENDLIST` once all are there.
 * Measured: a start at an instant (hls.js's `startPosition`) and the time to its first frame; the
 * playlist read again as it grows; a seek past what hls.js has read, and a first start there;
 * a seek back; and an ended recording played to its end (`ended`, the rewind's cue for the next). Not IVS or S3 (no network between; IVS's own playlist and timing unproven): what
 * it decided is in the decision record. Not part of `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { launchChromium } from '@tailcam/harness/chromium';
import { loadAverage } from '@tailcam/harness/load-average';

const SEGMENT_S = 6;
const SEGMENTS = 12;
/** Listed when the playback starts: 30 s recorded. */
const LISTED_AT_FIRST = 5;

const dir = mkdtempSync(join(tmpdir(), 'tailcam-ivs-hls-'));
const ffmpeg = spawnSync(
  process.env['FFMPEG_PATH'] ?? 'ffmpeg',
  // prettier-ignore
  ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30',
    '-t', String(SEGMENT_S * SEGMENTS), '-c:v', 'libx264', '-preset', 'veryfast', '-g', '60',
    '-keyint_min', '60', '-sc_threshold', '0', '-pix_fmt', 'yuv420p', '-f', 'hls',
    '-hls_time', String(SEGMENT_S), '-hls_playlist_type', 'event', '-hls_segment_type', 'fmp4',
    '-hls_fmp4_init_filename', 'init.mp4', '-hls_list_size', '0',
    '-hls_segment_filename', join(dir, '%d.m4s'), join(dir, 'playlist.m3u8')],
  { stdio: 'inherit' },
);
if (ffmpeg.status !== 0) throw new Error('ffmpeg could not make the recording');

const written = readFileSync(join(dir, 'playlist.m3u8'), 'utf8').split('\n');
// ffmpeg has finished: its playlist ends with #EXT-X-ENDLIST, which the recording gets only at its end.
const head = written.filter(
  (line) => line.startsWith('#EXT') && !line.startsWith('#EXTINF') && line !== '#EXT-X-ENDLIST',
);
const segments = written.flatMap((line, index) =>
  line.startsWith('#EXTINF') ? [[line, written[index + 1]!]] : [],
);
const hlsScript = readFileSync(
  createRequire(import.meta.url).resolve('hls.js/dist/hls.light.min.js'),
);

let recordingSince = Date.now();
const listed = () =>
  Math.min(
    segments.length,
    LISTED_AT_FIRST + Math.floor((Date.now() - recordingSince) / (SEGMENT_S * 1000)),
  );
const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://bench').pathname;
  const send = (type: string, body: string | Buffer) => {
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    response.end(body);
  };
  if (path === '/') return send('text/html', '<!doctype html><video muted playsinline></video>');
  if (path === '/hls.js') return send('text/javascript', hlsScript);
  if (path === '/multivariant.m3u8') {
    return send(
      'application/vnd.apple.mpegurl',
      '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180\nhigh/playlist.m3u8\n',
    );
  }
  if (path === '/high/playlist.m3u8' || path === '/high/ended.m3u8') {
    const count = path === '/high/ended.m3u8' ? segments.length : listed();
    const end = count === segments.length ? ['#EXT-X-ENDLIST'] : [];
    const lines = [...head, ...segments.slice(0, count).flat(), ...end];
    return send('application/vnd.apple.mpegurl', `${lines.join('\n')}\n`);
  }
  const name = /^\/high\/([a-z0-9]+\.m4s|init\.mp4)$/.exec(path)?.[1];
  if (name) return send('video/mp4', readFileSync(join(dir, name)));
  response.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

interface Seen {
  timeS: number;
  readyState: number;
  /** Where what hls.js last read of the playlist ends, media seconds. */
  listedS: number;
}

const browser = await launchChromium();
try {
  const open = async (startS: number, playlist = '/multivariant.m3u8'): Promise<Page> => {
    const page = await browser.newPage();
    await page.goto(origin);
    await page.addScriptTag({ url: '/hls.js' });
    await page.evaluate(
      ({ start, source }) => {
        const hls = new window.Hls({ startPosition: start });
        hls.on(window.Hls.Events.LEVEL_LOADED, (_event, data) => {
          window.listedS = data.details.edge;
        });
        hls.loadSource(source);
        hls.attachMedia(document.querySelector('video')!);
        void document.querySelector('video')!.play();
      },
      { start: startS, source: playlist },
    );
    return page;
  };
  const seen = (page: Page): Promise<Seen> =>
    page.evaluate(() => {
      const video = document.querySelector('video')!;
      return {
        timeS: video.currentTime,
        readyState: video.readyState,
        listedS: window.listedS ?? Number.NaN,
      };
    });
  /** ms until the video plays past `afterS`. */
  const playsPast = async (page: Page, afterS: number): Promise<number> => {
    const from = performance.now();
    await page.waitForFunction(
      (after) => {
        const video = document.querySelector('video')!;
        return !video.seeking && video.readyState >= 3 && video.currentTime > after;
      },
      afterS,
      { timeout: 20_000, polling: 20 },
    );
    return Math.round(performance.now() - from);
  };
  const line = (text: string) => console.log(`${text}  (load ${loadAverage()})`);

  recordingSince = Date.now();
  const page = await open(10);
  line(`start at 10 s of 30 listed: playing past 10.05 s after ${await playsPast(page, 10.05)} ms`);
  const first = await seen(page);
  await page.waitForTimeout(SEGMENT_S * 1000 + 1_500);
  const grown = await seen(page);
  line(
    `the playlist read again as it grows: listed ${first.listedS.toFixed(2)} s → ${grown.listedS.toFixed(2)} s`,
  );

  const beyond = grown.listedS + 8;
  const seekedAt = performance.now();
  await page.evaluate((to) => (document.querySelector('video')!.currentTime = to), beyond);
  await page.waitForFunction(() => !document.querySelector('video')!.seeking, null, {
    timeout: 20_000,
  });
  const held = await seen(page);
  await playsPast(page, held.timeS + 0.05);
  const on = Math.round(performance.now() - seekedAt);
  line(
    `a seek to ${beyond.toFixed(1)} s, ${8} s past what is listed: held at ${held.timeS.toFixed(2)} s, ` +
      `playing on ${on} ms after the seek (once the next segment is listed)`,
  );

  await page.evaluate(() => (document.querySelector('video')!.currentTime = 2));
  line(`a seek back to 2 s: playing past 2.05 s after ${await playsPast(page, 2.05)} ms`);
  await page.close();

  recordingSince = Date.now();
  const startedAt = performance.now();
  const past = await open(40);
  await past.waitForTimeout(1_000);
  const waiting = await seen(past);
  await playsPast(past, waiting.timeS + 0.05);
  const later = Math.round(performance.now() - startedAt);
  line(
    `a first start at 40 s of 30 listed: held at ${waiting.timeS.toFixed(2)} s, playing on ${later} ms after the start`,
  );

  // A recording that has ended (its playlist with #EXT-X-ENDLIST), played to its end: the feed
  // moves to the next span on the video's `ended`.
  const ended = await open(SEGMENT_S * SEGMENTS - 3, '/high/ended.m3u8');
  const endedAt = performance.now();
  await ended.waitForFunction(() => document.querySelector('video')!.ended, null, {
    timeout: 20_000,
  });
  line(
    `an ended recording started 3 s before its end: 'ended' after ${Math.round(performance.now() - endedAt)} ms`,
  );
} finally {
  await browser.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

declare global {
  interface Window {
    Hls: typeof import('hls.js').default;
    listedS?: number;
  }
}
