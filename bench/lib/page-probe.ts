/**
 * What the benchmark adds to every page before the app's own scripts run (as source text, so
 * that no build helper of this file leaks into the page; DevTools-injected, so the app's CSP does
 * not apply to it). It stores the login token as a signed-in browser would have it, and records,
 * with the page's own clock:
 * - the last click (capture phase, before the app sees it), and the first frame presented after
 *   it (`requestVideoFrameCallback`) and `loadeddata`, on every <video> that appears;
 * - the steps of a join: WebSocket created/open/`joined`/`offer`, peer connection connected;
 * - the first frame after a video's source changes (a rejoin attaches a new track);
 * - optionally (`__bench.g2g.on`), the capture time in every other frame's time strip against
 *   the time the frame is expected on screen, both on the wall clock;
 * - peer connections the page opened and has not closed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@tailcam/harness/product';

export interface JoinMarks {
  clickAt: number;
  firstFrameAt: number | undefined;
  loadedDataAt: number | undefined;
  marks: { name: string; at: number }[];
}

export interface G2gSample {
  captureMs: number;
  receiveMs: number | undefined;
  presentedMs: number;
  streamIndex: number;
}

const stripDecoder = readFileSync(join(ROOT, 'local-stage', 'dist', 'time-strip.js'), 'utf8');

export function pageProbe(loginToken: string): string {
  return `${stripDecoder}
;(${String.raw`(loginToken) => {
  localStorage.setItem('token', loginToken);
  window.__tailcamExp = JSON.parse(localStorage.getItem('tailcam-exp') || '{}');
  const bench = {
    clickAt: undefined, firstFrameAt: undefined, loadedDataAt: undefined, marks: [],
    frames: 0, sourceAt: undefined, firstFrameAfterSource: undefined,
    g2g: { on: false, samples: [] },
    peers: { opened: 0, closed: 0 },
  };
  window.__bench = bench;
  const mark = (name) => bench.marks.push({ name, at: performance.now() });
  const wallClock = () => Date.now() - performance.now(); // maps the page clock onto Date.now()

  document.addEventListener('click', () => {
    bench.clickAt = performance.now();
    bench.firstFrameAt = undefined;
    bench.loadedDataAt = undefined;
    bench.marks = [];
  }, true);

  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      mark('ws-created');
      this.addEventListener('open', () => mark('ws-open'));
      this.addEventListener('message', (event) => {
        if (typeof event.data !== 'string') return;
        const type = /"type":"(joined|offer|candidate)"/.exec(event.data);
        if (type) mark('ws-' + type[1]);
      });
    }
    send(data) {
      const type = typeof data === 'string' && /"type":"(subscribe|answer|candidate)"/.exec(data);
      if (type) mark('ws-sent-' + type[1]);
      super.send(data);
    }
  };

  const NativePeer = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeer {
    constructor(...args) {
      super(...args);
      bench.peers.opened += 1;
      mark('pc-created');
      this.addEventListener('connectionstatechange', () => {
        if (this.connectionState === 'connected') mark('pc-connected');
      });
      this.addEventListener('iceconnectionstatechange', () => {
        if (this.iceConnectionState === 'connected') mark('ice-connected');
      });
    }
    close() {
      if (this.signalingState !== 'closed') bench.peers.closed += 1;
      super.close();
    }
  };

  const canvas = document.createElement('canvas');
  let context;
  const sampleStrip = (video, metadata) => {
    if (canvas.width !== metadata.width || canvas.height !== metadata.height) {
      canvas.width = metadata.width;
      canvas.height = metadata.height;
      context = canvas.getContext('2d', { willReadFrequently: true });
    }
    const offset = wallClock();
    context.drawImage(video, 0, 0);
    const decoded = window.TailcamTimeStrip.decodeTimeStrip(
      context.getImageData(0, 0, canvas.width, canvas.height));
    if (!decoded) return;
    bench.g2g.samples.push({
      captureMs: decoded.captureTimeMs,
      receiveMs: metadata.receiveTime === undefined ? undefined : metadata.receiveTime + offset,
      presentedMs: metadata.expectedDisplayTime + offset,
      streamIndex: decoded.streamIndex,
    });
  };

  const watch = (video) => {
    if (video.__benchWatched) return;
    video.__benchWatched = true;
    video.addEventListener('loadstart', () => {
      bench.sourceAt = performance.now();
      bench.firstFrameAfterSource = undefined;
    });
    video.addEventListener('loadeddata', () => {
      if (bench.loadedDataAt === undefined) bench.loadedDataAt = performance.now();
    });
    const onFrame = (now, metadata) => {
      if (!video.isConnected) return;
      bench.frames += 1;
      if (bench.clickAt !== undefined && bench.firstFrameAt === undefined && now >= bench.clickAt) {
        bench.firstFrameAt = now;
      }
      if (bench.sourceAt !== undefined && bench.firstFrameAfterSource === undefined) {
        bench.firstFrameAfterSource = now;
      }
      if (bench.g2g.on && metadata.presentedFrames % 2 === 0) sampleStrip(video, metadata);
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node instanceof HTMLVideoElement) watch(node);
        else if (node instanceof Element) node.querySelectorAll('video').forEach(watch);
      }
    }
  }).observe(document, { subtree: true, childList: true });

  /** Frames presented per second over the next windowMs, counted with requestVideoFrameCallback. */
  window.__benchFps = async (windowMs) => {
    const startFrames = bench.frames;
    const start = performance.now();
    await new Promise((done) => setTimeout(done, windowMs));
    return ((bench.frames - startFrames) * 1000) / (performance.now() - start);
  };
  /** The page clock mapped onto Date.now(). */
  window.__benchWall = (pageTime) => pageTime + wallClock();
}`})(${JSON.stringify(loginToken)});
`;
}
