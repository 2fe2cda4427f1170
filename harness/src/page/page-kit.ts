/**
 * What a browser test reads from inside a page, bundled by esbuild (page-scripts.ts) and added to
 * the page as `window.TailcamPageKit`: the pixels of the frame a video shows, the time strip in
 * them (the synthetic camera's stream, frame and capture time), how much of them is the drawn
 * publisher's colour (drawn-picture.ts), and the frames a video decoded.
 */
import {
  decodeTimeStrip,
  decodeTimeStripWith,
  timeStripGeometry,
  TIME_STRIP_COLUMNS,
  type TimeStripPayload,
} from '@tailcam/local-stage/time-strip';
import { shareOfColour } from '../drawn-picture';

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PageKit {
  /** The frame `video` shows now, drawn whole; its pixels in `region` (all of it by default). */
  videoPixels(video: HTMLVideoElement, region?: Region): ImageData | null;
  /** The time strip of the frame `video` shows now; null before a frame or without a strip. */
  frameStamp(video: HTMLVideoElement): TimeStripPayload | null;
  /** Frames the element has decoded so far. */
  framesDecoded(video: HTMLVideoElement): number;
  decodeTimeStrip: typeof decodeTimeStrip;
  decodeTimeStripWith: typeof decodeTimeStripWith;
  timeStripGeometry: typeof timeStripGeometry;
  TIME_STRIP_COLUMNS: number;
  shareOfColour: typeof shareOfColour;
}

declare global {
  interface Window {
    TailcamPageKit: PageKit;
  }
}

function pageKit(): PageKit {
  // One canvas for every read: the page's memory stays flat over thousands of frames.
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const videoPixels = (video: HTMLVideoElement, region?: Region): ImageData | null => {
    if (!context || video.videoWidth === 0) return null;
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    context.drawImage(video, 0, 0);
    const { x, y, width, height } = region ?? {
      x: 0,
      y: 0,
      width: canvas.width,
      height: canvas.height,
    };
    return context.getImageData(x, y, width, height);
  };
  return {
    videoPixels,
    frameStamp(video) {
      const image = videoPixels(video);
      return image && decodeTimeStrip(image);
    },
    framesDecoded: (video) => video.getVideoPlaybackQuality().totalVideoFrames,
    decodeTimeStrip,
    decodeTimeStripWith,
    timeStripGeometry,
    TIME_STRIP_COLUMNS,
    shareOfColour,
  };
}

window.TailcamPageKit ??= pageKit();
