/** The player's video as a browser test sees it: found by its label, read through the element. */
import type { Locator, Page } from '@playwright/test';

export function playerVideo(page: Page): Locator {
  return page.getByLabel(/^Live video from /);
}

export interface Playback {
  /** Frames decoded so far. */
  frames: number;
  /** The element's currentTime, in seconds. */
  time: number;
}

/** How far the player's video has played: it plays while both numbers grow. */
export function playback(page: Page): Promise<Playback> {
  return playerVideo(page).evaluate((element: HTMLVideoElement) => ({
    frames: element.getVideoPlaybackQuality().totalVideoFrames,
    time: element.currentTime,
  }));
}
