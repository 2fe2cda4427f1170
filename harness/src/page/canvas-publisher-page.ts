/**
 * A WHIP publisher of a noisy canvas, in a page of its own origin (canvas-publisher.ts drives it
 * through `window.canvasPublisher`): plain RTCPeerConnection and fetch, as any browser client.
 * Each frame is a fresh crop of noise drawn once, so the encoder always has more to send than
 * the link allows. Or (`timeStrip`) a calm picture with the synthetic camera's time strip, so a
 * test can tell which frame it sees and when it was drawn (e2e/recording-playback.spec.ts).
 */
import { drawTimeStrip } from '@tailcam/local-stage/time-strip';

export interface CanvasPublisherStart {
  whipUrl: string;
  token: string;
  width: number;
  height: number;
  /** Leaves the offer's transport-wide CC and REMB lines out (the stage before decision 0066). */
  withoutFeedback: boolean;
  /**
   * Grain (noise of ±24 around grey) under a moving bar rather than full-range noise: a picture an
   * encoder can send at any rate, more sharply the more it may send. Full-range noise keeps the
   * quantizer at its ceiling, so libwebrtc's quality scaler shrinks the picture (to 320x180, whose
   * rate it caps at 600 kbit/s, whatever the link).
   */
  grain: boolean;
  /** The sender's `degradationPreference` set to `maintain-resolution`: 720p whatever the rate. */
  holdResolution: boolean;
  /**
   * Draws a moving bar on grey with the time strip (local-stage/src/time-strip.ts) of each frame:
   * its draw time on this machine's clock, this stream index and a frame counter. No noise.
   */
  timeStrip?: { streamIndex: number };
  /** The only video codec offered (setCodecPreferences); Chromium's order otherwise. */
  videoCodec?: 'VP8' | 'H264';
}

/** One reading of the publisher's own stats (bit/s, bytes, ms). */
export interface CanvasPublisherReading {
  at: number;
  connectedAt: number;
  estimate: number | undefined;
  target: number | undefined;
  bytesSent: number;
  framesSent: number;
  packetsSent: number;
  /** Packets sent again on the stage's NACKs, and the NACK messages that asked (outbound-rtp). */
  retransmittedPacketsSent: number;
  nackCount: number;
  /** Round trip from the stage's receiver reports, s: grows as a queue on the path fills. */
  roundTripTime: number | undefined;
  reason: string | undefined;
  frameWidth: number | undefined;
  framesPerSecond: number | undefined;
}

export interface CanvasPublisherPage {
  start(options: CanvasPublisherStart): Promise<void>;
  reading(): Promise<CanvasPublisherReading>;
  stop(): Promise<void>;
}

declare global {
  interface Window {
    canvasPublisher: CanvasPublisherPage;
  }
}

const FEEDBACK_LINE =
  /^a=(rtcp-fb:\S+ (transport-cc|goog-remb)|extmap:\S+ \S*(transport-wide-cc|abs-send-time))/;

let peer: RTCPeerConnection | undefined;
let resource: { url: string; token: string } | undefined;
let connectedAt = 0;

function noiseCanvas(width: number, height: number, grain: boolean): HTMLCanvasElement {
  const noise = document.createElement('canvas');
  noise.width = width;
  noise.height = height;
  const context = noise.getContext('2d');
  if (!context) throw new Error('no 2d context');
  const image = context.createImageData(width, height);
  const pixels = new Uint32Array(image.data.buffer);
  for (let index = 0; index < pixels.length; index += 1) {
    const grey = 104 + Math.floor(Math.random() * 48);
    pixels[index] = grain
      ? 0xff000000 | (grey << 16) | (grey << 8) | grey
      : (Math.random() * 0xffffffff) | 0xff000000;
  }
  context.putImageData(image, 0, 0);
  return noise;
}

function drawnTrack(
  width: number,
  height: number,
  grain: boolean,
  timeStrip: CanvasPublisherStart['timeStrip'],
): MediaStreamTrack {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  document.body.append(canvas);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  const noise = timeStrip ? undefined : noiseCanvas(width * 2, height * 2, grain);
  let frame = 0;
  const draw = () => {
    frame += 1;
    if (noise) {
      const x = Math.floor(Math.random() * width);
      const y = Math.floor(Math.random() * height);
      context.drawImage(noise, x, y, width, height, 0, 0, width, height);
    } else {
      context.fillStyle = '#707070';
      context.fillRect(0, 0, width, height);
    }
    if (grain || timeStrip) {
      context.fillStyle = '#f0f0f0';
      context.fillRect((frame * 8) % width, 0, width / 16, height);
    }
    if (timeStrip) {
      drawTimeStrip(context, width, height, {
        captureTimeMs: Math.round(performance.timeOrigin + performance.now()),
        streamIndex: timeStrip.streamIndex,
        frame,
      });
    }
  };
  draw();
  setInterval(draw, 1000 / 30);
  const [track] = canvas.captureStream(30).getVideoTracks();
  if (!track) throw new Error('no canvas track');
  return track;
}

function gathered(connection: RTCPeerConnection): Promise<void> {
  return new Promise((resolve) => {
    if (connection.iceGatheringState === 'complete') return resolve();
    const timer = setTimeout(resolve, 1000);
    connection.addEventListener('icegatheringstatechange', () => {
      if (connection.iceGatheringState !== 'complete') return;
      clearTimeout(timer);
      resolve();
    });
  });
}

function connected(connection: RTCPeerConnection): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (connection.connectionState === 'connected') resolve();
      if (connection.connectionState === 'failed') reject(new Error('the publisher failed'));
    };
    connection.addEventListener('connectionstatechange', check);
    check();
  });
}

const numberOr = (value: unknown) => (typeof value === 'number' ? value : undefined);

window.canvasPublisher = {
  async start(options) {
    const connection = new RTCPeerConnection();
    peer = connection;
    const transceiver = connection.addTransceiver(
      drawnTrack(options.width, options.height, options.grain, options.timeStrip),
      { direction: 'sendonly' },
    );
    const codec = options.videoCodec;
    if (codec) {
      const codecs = (RTCRtpReceiver.getCapabilities('video')?.codecs ?? []).filter(
        ({ mimeType }) => mimeType.toLowerCase() === `video/${codec.toLowerCase()}`,
      );
      if (codecs.length === 0) throw new Error(`this browser cannot send ${codec}`);
      transceiver.setCodecPreferences(codecs);
    }
    if (options.holdResolution) {
      const parameters = transceiver.sender.getParameters();
      await transceiver.sender.setParameters({
        ...parameters,
        degradationPreference: 'maintain-resolution',
      });
    }
    await connection.setLocalDescription(await connection.createOffer());
    await gathered(connection);
    const offer = (connection.localDescription?.sdp ?? '')
      .split('\r\n')
      .filter((line) => !options.withoutFeedback || !FEEDBACK_LINE.test(line))
      .join('\r\n');
    const response = await fetch(options.whipUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${options.token}` },
      body: offer,
    });
    if (!response.ok) throw new Error(`WHIP POST answered ${response.status}`);
    resource = {
      url: new URL(response.headers.get('location') ?? '', options.whipUrl).href,
      token: options.token,
    };
    await connection.setRemoteDescription({ type: 'answer', sdp: await response.text() });
    await connected(connection);
    connectedAt = performance.now();
  },
  async reading() {
    if (!peer) throw new Error('not publishing');
    const report = await peer.getStats();
    let estimate: number | undefined;
    let outbound: Record<string, unknown> | undefined;
    let roundTripTime: number | undefined;
    report.forEach((entry: Record<string, unknown>) => {
      if (entry.type === 'remote-inbound-rtp' && entry.kind === 'video')
        roundTripTime = numberOr(entry.roundTripTime);
      const available = numberOr(entry.availableOutgoingBitrate);
      if (entry.type === 'candidate-pair' && available !== undefined) estimate = available;
      if (entry.type === 'outbound-rtp' && entry.kind === 'video') outbound = entry;
    });
    const reason = outbound?.qualityLimitationReason;
    return {
      at: performance.now(),
      connectedAt,
      estimate,
      target: numberOr(outbound?.targetBitrate),
      bytesSent: numberOr(outbound?.bytesSent) ?? 0,
      framesSent: numberOr(outbound?.framesSent) ?? 0,
      packetsSent: numberOr(outbound?.packetsSent) ?? 0,
      retransmittedPacketsSent: numberOr(outbound?.retransmittedPacketsSent) ?? 0,
      nackCount: numberOr(outbound?.nackCount) ?? 0,
      roundTripTime,
      reason: typeof reason === 'string' ? reason : undefined,
      frameWidth: numberOr(outbound?.frameWidth),
      framesPerSecond: numberOr(outbound?.framesPerSecond),
    };
  },
  async stop() {
    peer?.close();
    peer = undefined;
    if (!resource) return;
    const { url, token } = resource;
    resource = undefined;
    await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  },
};
