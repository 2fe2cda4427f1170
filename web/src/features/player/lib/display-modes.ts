/**
 * Fullscreen and picture-in-picture for the player's keys (docs/product.md#keyboard). Each
 * toggle answers with what to announce: the new mode, or that the browser does not offer it.
 */
import { uiText } from '@/config/ui-text';

const { shortcuts } = uiText;

export async function toggleFullscreen(element: HTMLElement): Promise<string> {
  try {
    if (document.fullscreenElement) {
      await document.exitFullscreen();
      return shortcuts.fullscreenOff;
    }
    if (!document.fullscreenEnabled) return shortcuts.fullscreenUnavailable;
    await element.requestFullscreen();
    return shortcuts.fullscreenOn;
  } catch {
    return shortcuts.fullscreenUnavailable;
  }
}

export async function togglePictureInPicture(video: HTMLVideoElement): Promise<string> {
  try {
    if (document.pictureInPictureElement) {
      await document.exitPictureInPicture();
      return shortcuts.pictureInPictureOff;
    }
    // Not every browser has it (Firefox has its own button), and not before the video has a frame.
    if (!document.pictureInPictureEnabled || video.readyState < HTMLMediaElement.HAVE_METADATA) {
      return shortcuts.pictureInPictureUnavailable;
    }
    await video.requestPictureInPicture();
    return shortcuts.pictureInPictureOn;
  } catch {
    return shortcuts.pictureInPictureUnavailable;
  }
}
