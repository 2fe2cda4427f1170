/**
 * The local stage as a test sees it: its loopback-only stats and fault controls (on the stage's
 * own port, never behind the API), and the time strip read back from the pixels the browser shows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT } from '@tailcam/harness/product';
import { stageControl } from '@tailcam/harness/stage-control';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { E2E_STAGE_URL } from './environment';

/** The stage of the product the global setup shares with the specs. */
export const localStage = stageControl(E2E_STAGE_URL);

const stripDecoder = readFileSync(join(ROOT, 'local-stage', 'dist', 'time-strip.js'), 'utf8');

/**
 * Puts the time-strip decoder into the page as `window.TailcamTimeStrip` (through DevTools, so
 * the page's CSP does not apply), for tests that read many frames inside the page.
 */
export async function installStripDecoder(page: Page): Promise<void> {
  await page.evaluate(stripDecoder);
}

export interface FrameStamp {
  streamId: string;
  frame: number;
  /** How old the displayed frame is: now minus the capture time written in its pixels. */
  ageMs: number;
}

/** Reads the time strip of the frame the player's video shows right now (null if unreadable). */
export async function readFrameStamp(page: Page): Promise<FrameStamp | null> {
  await installStripDecoder(page);
  const payload = await page.evaluate(() => {
    const video = document.querySelector('video');
    if (!video || video.videoWidth === 0) return null;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) return null;
    context.drawImage(video, 0, 0);
    const image = context.getImageData(0, 0, canvas.width, canvas.height);
    const decoder = (
      window as unknown as {
        TailcamTimeStrip: {
          decodeTimeStrip: (
            image: ImageData,
          ) => { captureTimeMs: number; streamIndex: number; frame: number } | null;
        };
      }
    ).TailcamTimeStrip;
    const decoded = decoder.decodeTimeStrip(image);
    return decoded && { ...decoded, ageMs: Date.now() - decoded.captureTimeMs };
  });
  if (!payload) return null;
  return {
    streamId: STREAM_IDS[payload.streamIndex] ?? `unknown-${payload.streamIndex}`,
    frame: payload.frame,
    ageMs: payload.ageMs,
  };
}
