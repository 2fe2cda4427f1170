/**
 * dist/time-strip.js: the time-strip decoder as a browser global, for end-to-end tests that add
 * it to a page (`page.addScriptTag({ path })`) and read a video frame drawn on a canvas:
 *   TailcamTimeStrip.decodeTimeStrip(context.getImageData(0, 0, width, height))
 */
import {
  decodeTimeStrip,
  decodeTimeStripWith,
  timeStripGeometry,
  TIME_STRIP_COLUMNS,
  TIME_STRIP_ROWS,
} from '../time-strip';
import { STREAM_IDS } from '@tailcam/protocol/streams';

Object.defineProperty(globalThis, 'TailcamTimeStrip', {
  value: Object.freeze({
    decodeTimeStrip,
    decodeTimeStripWith,
    timeStripGeometry,
    TIME_STRIP_COLUMNS,
    TIME_STRIP_ROWS,
    STREAM_IDS,
  }),
  writable: true,
  configurable: true,
  enumerable: true,
});
