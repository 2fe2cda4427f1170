/**
 * The rewind part's probe (parts/rewind.ts), added before the player's own scripts. With the
 * page's clock, from the last click (capture phase, before the app sees it):
 * - the first frame the recording's video (`data-testid="rewind-video"`) presents
 *   (`requestVideoFrameCallback`), and how far its time strip is behind the wall clock then;
 * - when that video leaves the page ('Go live'), and the live video's next frame presented after.
 * `__rewindGap()` reads both videos' time strips now: the live picture's capture time minus the
 * recording's (how far behind live the recording plays).
 */
import { decodeTimeStrip } from '@tailcam/local-stage/time-strip';

export interface RewindMarks {
  clickAt: number | undefined;
  recordingFrameAt: number | undefined;
  /** The wall clock minus the capture time in the recording's first frame, ms. */
  recordingBehindMs: number | undefined;
  removedAt: number | undefined;
  liveFrameAt: number | undefined;
}

declare global {
  interface Window {
    __rewind: RewindMarks;
    __rewindGap(): number | undefined;
  }
}

const RECORDING = 'video[data-testid="rewind-video"]';
const LIVE = 'video[aria-label^="Live video from"]';

const marks: RewindMarks = {
  clickAt: undefined,
  recordingFrameAt: undefined,
  recordingBehindMs: undefined,
  removedAt: undefined,
  liveFrameAt: undefined,
};
window.__rewind = marks;

document.addEventListener(
  'click',
  () => {
    marks.clickAt = performance.now();
    marks.recordingFrameAt = undefined;
    marks.recordingBehindMs = undefined;
    marks.removedAt = undefined;
    marks.liveFrameAt = undefined;
  },
  true,
);

const canvas = document.createElement('canvas');
const captureTimeOf = (video: HTMLVideoElement | null): number | undefined => {
  if (!video || video.videoWidth === 0) return undefined;
  if (canvas.width !== video.videoWidth || canvas.height !== video.videoHeight) {
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
  }
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) return undefined;
  context.drawImage(video, 0, 0);
  return decodeTimeStrip(context.getImageData(0, 0, canvas.width, canvas.height))?.captureTimeMs;
};

const recordingIn = (node: Node): HTMLVideoElement | null => {
  if (node instanceof HTMLVideoElement) return node.matches(RECORDING) ? node : null;
  return node instanceof Element ? node.querySelector<HTMLVideoElement>(RECORDING) : null;
};

new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      const video = recordingIn(node);
      video?.requestVideoFrameCallback((now) => {
        if (marks.recordingFrameAt !== undefined) return;
        marks.recordingFrameAt = now;
        const captured = captureTimeOf(video);
        if (captured !== undefined) marks.recordingBehindMs = Date.now() - captured;
      });
    }
    for (const node of record.removedNodes) {
      if (!recordingIn(node)) continue;
      const removedAt = performance.now();
      marks.removedAt = removedAt;
      document.querySelector<HTMLVideoElement>(LIVE)?.requestVideoFrameCallback((now) => {
        marks.liveFrameAt = Math.max(now, removedAt);
      });
    }
  }
}).observe(document, { subtree: true, childList: true });

window.__rewindGap = () => {
  const live = captureTimeOf(document.querySelector<HTMLVideoElement>(LIVE));
  const recorded = captureTimeOf(document.querySelector<HTMLVideoElement>(RECORDING));
  return live === undefined || recorded === undefined ? undefined : live - recorded;
};
