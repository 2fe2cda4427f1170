/**
 * The local stage as a test sees it: its loopback-only stats and fault controls (on the stage's
 * own port, never behind the API), and the time strip read back from the pixels the browser shows.
 */
import type { Page } from '@playwright/test';
import { installPageKit } from '@tailcam/harness/page-scripts';
import { stageControl } from '@tailcam/harness/stage-control';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { E2E_STAGE_URL } from './environment';

/** The stage of the product the global setup shares with the specs. */
export const localStage = stageControl(E2E_STAGE_URL);

export interface FrameStamp {
  streamId: string;
  frame: number;
  /** How old the displayed frame is: now minus the capture time written in its pixels. */
  ageMs: number;
}

/** Reads the time strip of the frame the player's video shows right now (null if unreadable). */
export async function readFrameStamp(page: Page): Promise<FrameStamp | null> {
  await installPageKit(page);
  const payload = await page.evaluate(() => {
    const video = document.querySelector('video');
    const decoded = video && window.TailcamPageKit.frameStamp(video);
    return decoded && { ...decoded, ageMs: Date.now() - decoded.captureTimeMs };
  });
  if (!payload) return null;
  return {
    streamId: STREAM_IDS[payload.streamIndex] ?? `unknown-${payload.streamIndex}`,
    frame: payload.frame,
    ageMs: payload.ageMs,
  };
}
