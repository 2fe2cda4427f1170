/**
 * Measures the browser SDK in Chromium against an in-process local stage
 * (`npx tsx local-stage/scripts/measure-browser.ts [rounds]`, after `npm run build -w
 * local-stage`): `new Stage()` → joined → streams added → ICE / DTLS connected → first frame
 * presented, then the glass-to-glass age read from the time strip, and the frame rate. The first
 * round is cold (first WebSocket, first decoder); the medians are of the others. Uses Debian's
 * Chromium (CHROMIUM_PATH to override).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { startLocalStage } from '../src/server/start';

interface Round {
  joinedMs: number;
  streamsAddedMs: number;
  iceConnectedMs: number;
  dtlsConnectedMs: number;
  firstFrameMs: number;
  ageMs: number;
  fps: number;
  streamIndex: number;
}

// Runs in the page, as source text (so that no build helper of this script leaks into it).
const pageProbe = String.raw`async ({ sdk, strip, token, first }) => {
  const t0 = performance.now();
  const at = () => Math.round(performance.now() - t0);
  const marks = {};
  if (first) {
    const Original = window.RTCPeerConnection;
    window.RTCPeerConnection = function (configuration) {
      const peer = new Original(configuration);
      peer.addEventListener('iceconnectionstatechange', () => {
        if (peer.iceConnectionState === 'connected') window.__marks.ice = window.__at();
      });
      peer.addEventListener('connectionstatechange', () => {
        if (peer.connectionState === 'connected') window.__marks.dtls = window.__at();
      });
      return peer;
    };
    new Function(sdk)();
    new Function(strip)();
  }
  window.__marks = marks;
  window.__at = at;
  const { Stage, StageEvents, StageSubscribeStreamType } = window.IVSBroadcastClient;
  const stage = new Stage(token, {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => [StageSubscribeStreamType.VIDEO],
  });
  const video = document.createElement('video');
  video.muted = true;
  document.body.append(video);
  let streamsAddedMs = 0;
  stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (_participant, streams) => {
    streamsAddedMs = at();
    const track = streams.find((stream) => stream.streamType === 'video').mediaStreamTrack;
    video.srcObject = new MediaStream([track]);
    void video.play();
  });
  await stage.join();
  const joinedMs = at();
  const firstFrameMs = await new Promise((resolve) => video.requestVideoFrameCallback(() => resolve(at())));
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const ages = [];
  let streamIndex = -1;
  for (let sample = 0; sample < 15; sample += 1) {
    await new Promise((resolve) => video.requestVideoFrameCallback(resolve));
    context.drawImage(video, 0, 0);
    const decoded = window.TailcamTimeStrip.decodeTimeStrip(context.getImageData(0, 0, canvas.width, canvas.height));
    if (decoded) {
      ages.push(Date.now() - decoded.captureTimeMs);
      streamIndex = decoded.streamIndex;
    }
    await new Promise((resolve) => setTimeout(resolve, 37));
  }
  ages.sort((a, b) => a - b);
  const framesBefore = video.getVideoPlaybackQuality().totalVideoFrames;
  const fpsStart = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const fps = (video.getVideoPlaybackQuality().totalVideoFrames - framesBefore) / ((performance.now() - fpsStart) / 1000);
  stage.leave();
  video.remove();
  return {
    joinedMs, streamsAddedMs, iceConnectedMs: marks.ice ?? NaN, dtlsConnectedMs: marks.dtls ?? NaN,
    firstFrameMs, ageMs: ages[Math.floor(ages.length / 2)] ?? NaN, fps, streamIndex,
  };
}`;

const rounds = Number(process.argv[2] ?? 10);
const secret = new TextEncoder().encode('measure-browser-secret-long-enough-for-hs256');
const dist = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));
const sdk = readFileSync(dist('stage-sdk.js'), 'utf8');
const strip = readFileSync(dist('time-strip.js'), 'utf8');
const running = await startLocalStage({
  host: '127.0.0.1',
  port: 0,
  secret,
  faultsEnabled: false,
  camera: { width: 640, height: 360, fps: 30, idleMs: 5000 },
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${running.url}/stage/health`); // any page of the stage's origin
  const results: Round[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const stageId = STREAM_IDS[round % STREAM_IDS.length] ?? 'N743AS';
    const token = await issueParticipantToken({
      secret,
      participantId: `browser-${round}`,
      stageId,
      userId: 'measure',
      attributes: {},
      capabilities: { publish: false, subscribe: true },
      stageBaseUrl: `${running.url}/stage`,
      ttlSeconds: 600,
    });
    const input = JSON.stringify({ sdk, strip, token, first: round === 0 });
    const result = (await page.evaluate(`(${pageProbe})(${input})`)) as Round;
    if (STREAM_IDS[result.streamIndex] !== stageId) throw new Error(`round ${round}: wrong stream`);
    results.push(result);
  }
  const warm = results.slice(1);
  const median = (pick: (round: Round) => number) => {
    const values = warm.map(pick).sort((a, b) => a - b);
    return Math.round(values[Math.floor(values.length / 2)] ?? NaN);
  };
  console.log(`cold first frame: ${Math.round(results[0]?.firstFrameMs ?? NaN)} ms`);
  console.log(
    `warm medians (${warm.length} rounds), ms after new Stage(): joined ${median((r) => r.joinedMs)}, ` +
      `streams added ${median((r) => r.streamsAddedMs)}, ICE ${median((r) => r.iceConnectedMs)}, ` +
      `DTLS ${median((r) => r.dtlsConnectedMs)}, first frame ${median((r) => r.firstFrameMs)}`,
  );
  console.log(
    `glass-to-glass (capture → presented, median) ${median((r) => r.ageMs)} ms; ` +
      `frame rate ${median((r) => r.fps)} fps; stage peers left: ${running.stage.stats().peerConnections}`,
  );
} finally {
  await browser.close();
  await running.close();
  process.exit(0);
}
