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

/** Frames one video element has decoded so far. */
export function framesDecoded(video: Locator): Promise<number> {
  return video.evaluate(
    (element: HTMLVideoElement) => element.getVideoPlaybackQuality().totalVideoFrames,
  );
}

/** Frames each of the page's video elements has decoded so far, in document order. */
export function framesDecodedPerVideo(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('video')].map(
      (video) => video.getVideoPlaybackQuality().totalVideoFrames,
    ),
  );
}
