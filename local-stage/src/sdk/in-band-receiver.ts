/**
 * In-band messages on the receiving side (docs/decisions/0094-in-band-messages.md): a video
 * receiver of a subscription whose strategy enables `inBandMessaging` gets an
 * `RTCRtpScriptTransform` whose worker (in-band-worker.ts, served beside this SDK as
 * `in-band-worker.js`) reads each frame's messages. One worker serves every receiver of the page.
 * A browser without `RTCRtpScriptTransform` gets no messages (the stage then sends it no trailer:
 * the SDK does not ask for them), and says so once.
 */
import type { InBandWorkerMessage } from './in-band-worker';

export interface SeiMessage {
  uuid: ArrayBuffer;
  payload: ArrayBuffer;
}

/** The worker's address: beside the SDK's own script (`/sdk/stage.js` → `/sdk/in-band-worker.js`). */
const workerUrl = (() => {
  const script = typeof document === 'undefined' ? null : document.currentScript;
  const base = script && 'src' in script && script.src ? script.src : undefined;
  return base ? new URL('in-band-worker.js', base).href : undefined;
})();

let worker: Worker | undefined;
let transforms = 0;
const listeners = new Map<number, (messages: SeiMessage[]) => void>();
let warned = false;

/** Whether this browser can read in-band messages. */
export function inBandSupported(): boolean {
  return typeof globalThis.RTCRtpScriptTransform === 'function' && workerUrl !== undefined;
}

/**
 * Reads `receiver`'s in-band messages into `onMessages` until the returned function is called.
 * False when the browser cannot (nothing attached).
 */
export function readInBandMessages(
  receiver: RTCRtpReceiver,
  onMessages: (messages: SeiMessage[]) => void,
): (() => void) | undefined {
  if (!inBandSupported() || workerUrl === undefined) {
    if (!warned) console.warn('[IVSBroadcastClient] in-band messages need RTCRtpScriptTransform');
    warned = true;
    return undefined;
  }
  if (!worker) {
    worker = new Worker(workerUrl);
    worker.onmessage = ({ data }: MessageEvent<InBandWorkerMessage>) =>
      listeners.get(data.id)?.(data.messages);
  }
  transforms += 1;
  const id = transforms;
  listeners.set(id, onMessages);
  receiver.transform = new RTCRtpScriptTransform(worker, { id });
  return () => listeners.delete(id);
}
