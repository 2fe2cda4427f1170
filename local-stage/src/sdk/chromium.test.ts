/**
 * The SDK bundle as a browser runs it: built to the same IIFE as dist/stage-sdk.js (in memory),
 * loaded into Chromium, joining an in-process local stage over a real WebSocket and WebRTC.
 * Skipped, loudly, when no Chromium is installed (CHROMIUM_PATH, /usr/bin/chromium).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningStage } from '../server/start';
import { testParticipantToken } from '../testing/participant-tokens';
import { startStageWithCameras } from '../testing/stage-with-cameras';
import { waitUntil } from '../testing/wait-until';

const executablePath = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
].find((path): path is string => !!path && existsSync(path));
if (!executablePath)
  console.warn('[local-stage] no Chromium found: the browser SDK test is skipped');

const secret = new TextEncoder().encode('chromium-test-secret-long-enough-for-hs256');
let running: RunningStage;
let browser: Browser;
let page: Page;

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome100'],
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]?.text ?? '';
}

async function token(participantId: string, stageId: string): Promise<string> {
  return testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId,
    stageId,
    attributes: { clientId: participantId },
  });
}

// Page code as source text: the test's own transform helpers must not leak into the page.
const watch = String.raw`async (token) => {
  const { Stage, StageEvents, StageSubscribeStreamType, StreamType } = window.IVSBroadcastClient;
  const events = [];
  const stage = new Stage(token, {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () => [StageSubscribeStreamType.VIDEO],
  });
  window.currentStage = stage;
  window.stageEvents = events;
  for (const name of Object.values(StageEvents)) {
    stage.on(name, (value) => events.push(name + ':' + (typeof value === 'string' ? value : '')));
  }
  const video = document.createElement('video');
  video.muted = true;
  document.body.replaceChildren(video);
  stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (_participant, streams) => {
    const stream = streams.find((candidate) => candidate.streamType === StreamType.VIDEO);
    window.videoStream = stream;
    video.srcObject = new MediaStream([stream.mediaStreamTrack]);
    void video.play();
  });
  await stage.join();
  const canvas = document.createElement('canvas');
  for (let attempt = 0; attempt < 200; attempt += 1) {
    await new Promise((resolve) => video.requestVideoFrameCallback(resolve));
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    context.drawImage(video, 0, 0);
    const strip = window.TailcamTimeStrip.decodeTimeStrip(context.getImageData(0, 0, canvas.width, canvas.height));
    if (strip) return { strip, ageMs: Date.now() - strip.captureTimeMs, events, tracks: video.srcObject.getTracks().map((t) => t.kind) };
  }
  return { strip: null, events };
}`;

describe.skipIf(!executablePath)('the SDK bundle in Chromium', () => {
  beforeAll(async () => {
    running = await startStageWithCameras({ secret, faultsEnabled: true });
    const [sdk, strip] = await Promise.all([
      bundle('./ivs-broadcast-client.ts'),
      bundle('./time-strip-global.ts'),
    ]);
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage();
    await page.goto(`${running.url}/stage/health`);
    await page.addScriptTag({ content: sdk });
    await page.addScriptTag({ content: strip });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });

  it('throws the IVS malformed-token error from the constructor', async () => {
    const message = await page.evaluate(`(() => {
      try { new window.IVSBroadcastClient.Stage('not-a-jwt', {}); return 'no error'; }
      catch (error) { return error.name + ': ' + error.message; }
    })()`);
    expect(message).toBe('StageError: [JOIN_ERROR] Token is malformed');
  });

  it('plays the joined aircraft: pixels name N953AS, the frame is fresh, no audio track', async () => {
    const result = (await page.evaluate(
      `(${watch})(${JSON.stringify(await token('chromium-1', 'N953AS'))})`,
    )) as {
      strip: { streamIndex: number } | null;
      ageMs: number;
      events: string[];
      tracks: string[];
    };
    expect(result.strip?.streamIndex).toBe(1);
    expect(result.ageMs).toBeLessThan(1000);
    expect(result.tracks).toEqual(['video']);
    expect(result.events.slice(0, 2)).toEqual([
      'stageConnectionStateChanged:connecting',
      'stageConnectionStateChanged:connected',
    ]);
  });

  it("gives the stream's stats as the IVS SDK does: requestRTCStats and requestQualityStats", async () => {
    const result = (await page.evaluate(`(async () => {
      const stream = window.videoStream;
      await stream.requestQualityStats();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const report = await stream.requestRTCStats();
      const inbound = [...report.values()].find((entry) => entry.type === 'inbound-rtp');
      return { inbound: inbound && { kind: inbound.kind, framesDecoded: inbound.framesDecoded }, quality: await stream.requestQualityStats() };
    })()`)) as {
      inbound?: { kind: string; framesDecoded: number };
      quality: {
        networkQuality: number;
        packetsReceived: number;
        framesDecoded: number;
        frameWidth: number;
      }[];
    };
    expect(result.inbound?.kind).toBe('video');
    expect(result.inbound?.framesDecoded).toBeGreaterThan(0);
    expect(result.quality).toHaveLength(1);
    expect(result.quality[0]).toMatchObject({ networkQuality: 4, frameWidth: 640 });
    expect(result.quality[0]?.packetsReceived).toBeGreaterThan(0);
    expect(result.quality[0]?.framesDecoded).toBeGreaterThan(0);
  });

  it('leaves: stageLeft user-initiated, and the stage holds no peer connection for the viewer', async () => {
    expect(running.stage.stats().participants).toContainEqual({
      participantId: 'chromium-1',
      stageId: 'N953AS',
      peerConnections: 1,
    });
    await page.evaluate('window.currentStage.leave()');
    await waitUntil(
      () => running.stage.stats().peerConnections === 0 && running.stage.stats().sockets === 0,
      'the stage to let the viewer go',
    );
  });

  it('reports a dropped connection as disconnected', async () => {
    const result = (await page.evaluate(
      `(${watch})(${JSON.stringify(await token('chromium-2', 'N743AS'))})`,
    )) as { strip: { streamIndex: number } | null };
    expect(result.strip?.streamIndex).toBe(0);
    await fetch(`${running.url}/_faults/drop`, {
      method: 'POST',
      body: JSON.stringify({ participantId: 'chromium-2' }),
    });
    await expect
      .poll(() => page.evaluate('window.stageEvents.at(-1)'))
      .toBe('stageConnectionStateChanged:disconnected');
  });
});
