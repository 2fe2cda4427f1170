/**
 * In-band messages on the receiving side (docs/decisions/0094-in-band-messages.md): a video
 * receiver of a subscription whose strategy enables `inBandMessaging` gets an
 * `RTCRtpScriptTransform` whose worker (in-band-worker.ts, served beside this SDK as
 * `in-band-worker.js`) reads each frame's messages. One worker serves every receiver of the page.
 * A browser without `RTCRtpScriptTransform`, or a page whose worker does not run, gets no messages
 * (the stage then sends it no trailer: the SDK does not ask for them), and says so once.
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

let transforms = 0;
const listeners = new Map<number, (messages: SeiMessage[]) => void>();
let warned = false;

/**
 * The page's one worker, started with the SDK: a frame given to a transform whose worker never
 * runs (its script not served, a CSP that refuses it) would never reach the decoder, so the SDK
 * asks for in-band messages only once the worker has said it runs.
 */
let worker: Worker | undefined;
let workerReady = false;
/** Joins waiting for the worker's 'ready' (`inBandReady`). */
const readyWaiters = new Set<() => void>();
const wakeWaiters = () => {
  for (const wake of readyWaiters) wake();
  readyWaiters.clear();
};
if (typeof globalThis.RTCRtpScriptTransform === 'function' && workerUrl !== undefined) {
  try {
    const started = new Worker(workerUrl);
    started.onmessage = ({ data }: MessageEvent<InBandWorkerMessage | 'ready'>) => {
      if (data === 'ready') {
        workerReady = true;
        wakeWaiters();
      } else listeners.get(data.id)?.(data.messages);
    };
    started.onerror = () => {
      workerReady = false;
      worker = undefined;
      wakeWaiters();
    };
    worker = started;
  } catch {
    worker = undefined; // not allowed here: no in-band messages
  }
}

/** Whether this page can read in-band messages now (its worker runs). */
export function inBandSupported(): boolean {
  return worker !== undefined && workerReady;
}

/**
 * Whether this page can read in-band messages, waiting up to `ms` for a worker still starting: a
 * join on a loaded machine may come before the worker's 'ready', and a subscription that did not
 * ask for the messages never gets them.
 */
export async function inBandReady(ms: number): Promise<boolean> {
  if (worker === undefined || workerReady) return inBandSupported();
  await new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      readyWaiters.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    readyWaiters.add(wake);
  });
  return inBandSupported();
}

/**
 * Reads `receiver`'s in-band messages into `onMessages` until the returned function is called;
 * undefined when the page cannot (nothing attached).
 */
export function readInBandMessages(
  receiver: RTCRtpReceiver,
  onMessages: (messages: SeiMessage[]) => void,
): (() => void) | undefined {
  if (!worker || !workerReady) {
    if (!warned) console.warn('[IVSBroadcastClient] in-band messages are not available here');
    warned = true;
    return undefined;
  }
  transforms += 1;
  const id = transforms;
  listeners.set(id, onMessages);
  receiver.transform = new RTCRtpScriptTransform(worker, { id });
  return () => listeners.delete(id);
}
