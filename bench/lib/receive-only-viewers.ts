/**
 * Viewers for measuring a server's CPU per viewer without the browser's decoding drowning it:
 * each is a real WebRTC endpoint (its own session and token, ICE, DTLS, SRTP, RTCP feedback), but
 * every video receiver gets an encoded transform (RTCRtpScriptTransform, in one worker per page)
 * that counts the encoded frames and drops them, so nothing reaches the decoder. Set on the
 * receiver in the peer connection's `track` event, before any media can arrive.
 *
 * The frames counted are whole frames reassembled from SRTP packets after the jitter buffer: a
 * viewer that counts ~30 a second is being forwarded the full frame rate.
 *
 * Unlike a watching viewer, such a receiver asks for key frames again and again while nothing
 * decodes: about 2 PLIs a second each while 3 key frames a second came, about 4 with 1 a second
 * (94 a second from 25 of them, the stage's stats), whatever the offer's `rtcp-fb` lines say
 * (without `nack pli` and `ccm fir` in the offer it asks as often). Each server answers them as it answers any viewer's:
 * one PLI a second on to the publisher (ours as Janus's, docs/architecture.md; one per 330 ms before: about 3
 * key frames a second reached every viewer), so 1 key frame a second reaches every viewer.
 * `receiverCounts` counts frames and key frames.
 */
import type { Page } from '@playwright/test';
import type { PeerPageApi } from './peer-sessions';

const workerSource = String.raw`
const frames = new Map();
const keys = new Map();
onrtctransform = (event) => {
  const id = event.transformer.options.id;
  frames.set(id, 0);
  keys.set(id, 0);
  const reader = event.transformer.readable.getReader();
  const drain = () => reader.read().then(({ done, value }) => {
    if (done) return;
    frames.set(id, frames.get(id) + 1); // counted, never written: the decoder gets nothing
    if (value.type === 'key') keys.set(id, keys.get(id) + 1);
    drain();
  });
  drain();
};
onmessage = (event) =>
  postMessage({ request: event.data, frames: [...frames.values()], keys: [...keys.values()] });
`;

/** Init script for viewer pages: installs the dropping transform on every peer connection. */
export const RECEIVE_ONLY_SCRIPT = `;(${String.raw`(workerSource) => {
  const worker = new Worker(URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' })));
  let nextId = 0;
  let nextRequest = 0;
  const NativePeer = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeer {
    constructor(...args) {
      super(...args);
      this.addEventListener('track', (event) => {
        if (event.track.kind !== 'video') return;
        nextId += 1;
        event.receiver.transform = new RTCRtpScriptTransform(worker, { id: nextId });
      });
    }
  };
  /** Frames (and key frames) each video receiver of the page has counted so far. */
  window.__receiveOnlyFrames = () => {
    const request = ++nextRequest;
    return new Promise((resolve) => {
      const listener = (event) => {
        if (event.data.request !== request) return;
        worker.removeEventListener('message', listener);
        resolve({ frames: event.data.frames, keys: event.data.keys });
      };
      worker.addEventListener('message', listener);
      worker.postMessage(request);
    });
  };
}`})(${JSON.stringify(workerSource)});
`;

export interface ReceiverCounts {
  /** Frames each video receiver of the page has counted so far. */
  frames: number[];
  /** Of which key frames. */
  keys: number[];
}

/** What every receiver of `page` has counted so far. */
export function receiverCounts(page: Page): Promise<ReceiverCounts> {
  return page.evaluate(() =>
    (
      window as unknown as { __receiveOnlyFrames: () => Promise<ReceiverCounts> }
    ).__receiveOnlyFrames(),
  );
}

/** Frames counted so far by every receiver of `page`. */
async function frameCounts(page: Page): Promise<number[]> {
  return (await receiverCounts(page)).frames;
}

export type ServerKind = 'ours' | 'janus';

export interface ViewerTarget {
  kind: ServerKind;
  /** ours: the API's origin (the page's, for /api/token and /sdk/stage.js); janus: its WS URL. */
  server: string;
  /** ours: the stream's id; janus: the mountpoint's id. */
  stream: string | number;
  /** ours: the bench viewer's login token. */
  loginToken?: string;
}

/**
 * Opens `count` more viewers in `page` (already on a peer page with the right library), a few at
 * a time, and resolves once each has counted a frame (or throws after `timeoutMs`).
 */
export async function addViewers(
  page: Page,
  target: ViewerTarget,
  count: number,
  timeoutMs = 60_000,
): Promise<void> {
  const before = (await frameCounts(page)).length;
  await page.evaluate(
    ({ target, count }) =>
      (window as unknown as { __peer: PeerPageApi }).__peer.openViewers(target, count),
    { target, count },
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frames = await frameCounts(page);
    const receiving = frames.slice(before).filter((value) => value > 0).length;
    if (frames.length >= before + count && receiving >= count) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${target.kind}: ${receiving} of ${count} new viewers receiving after ${timeoutMs / 1000} s`,
      );
    }
    await page.waitForTimeout(250);
  }
}
