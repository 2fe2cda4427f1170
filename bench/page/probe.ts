/**
 * The benchmark's probe in every page, added before the app's own scripts run (bundled by esbuild,
 * lib/page-probe.ts; DevTools-injected, so the app's CSP does not apply to it). `install` stores
 * the login token as a signed-in browser would have it, and records, with the page's own clock:
 * - the last click (capture phase, before the app sees it), and the first frame presented after
 *   it (`requestVideoFrameCallback`: its callback, and the frame's arrival and presentation) and
 *   `loadeddata`, on every <video> that appears, and when a video's source was set;
 * - the steps of a join: WebSocket created/open/`joined`/`offer`, peer connection connected;
 * - the first frame after a video's source changes (a rejoin attaches a new track);
 * - optionally (`__bench.g2g.on`), the capture time in every other frame's time strip against
 *   the time the frame is expected on screen, both on the wall clock;
 * - peer connections the page opened and has not closed.
 */
import { decodeTimeStrip } from '@tailcam/local-stage/time-strip';

export interface G2gSample {
  captureMs: number;
  receiveMs: number | undefined;
  presentedMs: number;
  streamIndex: number;
}

export interface BenchProbe {
  clickAt: number | undefined;
  firstFrameAt: number | undefined;
  loadedDataAt: number | undefined;
  marks: { name: string; at: number }[];
  /** Frames presented so far on the page (all videos). */
  frames: number;
  sourceAt: number | undefined;
  firstFrameAfterSource: number | undefined;
  g2g: { on: boolean; samples: G2gSample[] };
  peers: { opened: number; closed: number };
}

declare global {
  interface Window {
    __bench: BenchProbe;
    /** Frames presented per second over the next windowMs, counted with requestVideoFrameCallback. */
    __benchFps(windowMs: number): Promise<number>;
    /** The page clock mapped onto Date.now(). */
    __benchWall(pageTime: number): number;
    __tailcamExp: unknown;
    TailcamBenchProbe: { install(loginToken: string): void };
  }
}

function install(loginToken: string): void {
  localStorage.setItem('token', loginToken);
  window.__tailcamExp = JSON.parse(localStorage.getItem('tailcam-exp') || '{}');
  const bench: BenchProbe = {
    clickAt: undefined,
    firstFrameAt: undefined,
    loadedDataAt: undefined,
    marks: [],
    frames: 0,
    sourceAt: undefined,
    firstFrameAfterSource: undefined,
    g2g: { on: false, samples: [] },
    peers: { opened: 0, closed: 0 },
  };
  window.__bench = bench;
  const mark = (name: string) => bench.marks.push({ name, at: performance.now() });
  const wallClock = () => Date.now() - performance.now(); // maps the page clock onto Date.now()

  // The click is stamped at the button's release: its pointerup, or the click for a click with no
  // pointer (a key). A press can start the join (decision 0057), and a press whose element was
  // replaced before the release gets no click event at all (the card's picture arriving did that
  // once): stamped on click alone, such a join never had a start.
  let releasedAt: number | undefined;
  const stampClick = () => {
    bench.clickAt = performance.now();
    bench.firstFrameAt = undefined;
    bench.loadedDataAt = undefined;
    bench.marks = [];
  };
  document.addEventListener(
    'pointerup',
    () => {
      releasedAt = performance.now();
      stampClick();
    },
    true,
  );
  document.addEventListener(
    'click',
    () => {
      if (releasedAt === undefined || performance.now() - releasedAt > 100) stampClick();
    },
    true,
  );

  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      mark('ws-created');
      this.addEventListener('open', () => mark('ws-open'));
      this.addEventListener('message', (event: MessageEvent) => {
        if (typeof event.data !== 'string') return;
        const type = /"type":"(joined|offer|candidate)"/.exec(event.data);
        if (type) mark(`ws-${type[1]}`);
      });
    }
    override send(data: Parameters<WebSocket['send']>[0]): void {
      const type =
        typeof data === 'string' && /"type":"(subscribe|answer|candidate|resume)"/.exec(data);
      if (type) mark(`ws-sent-${type[1]}`);
      super.send(data);
    }
  };

  const NativePeer = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeer {
    constructor(...args: ConstructorParameters<typeof RTCPeerConnection>) {
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
    override close(): void {
      if (this.signalingState !== 'closed') bench.peers.closed += 1;
      super.close();
    }
  };

  const canvas = document.createElement('canvas');
  let context: CanvasRenderingContext2D | null = null;
  const sampleStrip = (video: HTMLVideoElement, metadata: VideoFrameCallbackMetadata) => {
    if (canvas.width !== metadata.width || canvas.height !== metadata.height || !context) {
      canvas.width = metadata.width;
      canvas.height = metadata.height;
      context = canvas.getContext('2d', { willReadFrequently: true });
    }
    if (!context) return;
    const offset = wallClock();
    context.drawImage(video, 0, 0);
    const decoded = decodeTimeStrip(context.getImageData(0, 0, canvas.width, canvas.height));
    if (!decoded) return;
    bench.g2g.samples.push({
      captureMs: decoded.captureTimeMs,
      receiveMs: metadata.receiveTime === undefined ? undefined : metadata.receiveTime + offset,
      presentedMs: metadata.expectedDisplayTime + offset,
      streamIndex: decoded.streamIndex,
    });
  };

  const watched = new WeakSet<HTMLVideoElement>();
  const watch = (video: HTMLVideoElement) => {
    if (watched.has(video)) return;
    watched.add(video);
    video.addEventListener('loadstart', () => {
      bench.sourceAt = performance.now();
      mark('video-source');
      bench.firstFrameAfterSource = undefined;
    });
    video.addEventListener('loadeddata', () => {
      if (bench.loadedDataAt === undefined) bench.loadedDataAt = performance.now();
    });
    const onFrame = (now: number, metadata: VideoFrameCallbackMetadata) => {
      if (!video.isConnected) return;
      bench.frames += 1;
      if (bench.clickAt !== undefined && bench.firstFrameAt === undefined && now >= bench.clickAt) {
        bench.firstFrameAt = now;
        // Its last packet's arrival: what is left after it is the decoder's and the renderer's.
        if (metadata.receiveTime !== undefined) {
          bench.marks.push({ name: 'frame-received', at: metadata.receiveTime });
        }
        // Handed to the compositor: on screen then, whatever the main thread is doing.
        bench.marks.push({ name: 'frame-presented', at: metadata.presentationTime });
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

  window.__benchFps = async (windowMs) => {
    const startFrames = bench.frames;
    const start = performance.now();
    await new Promise((done) => setTimeout(done, windowMs));
    return ((bench.frames - startFrames) * 1000) / (performance.now() - start);
  };
  window.__benchWall = (pageTime) => pageTime + wallClock();
}

window.TailcamBenchProbe = { install };
