/**
 * One camera's encoded feed (docs/decisions/0026-one-encoder-per-camera.md). The camera's frames
 * and its cabin sound are encoded once, by a libwebrtc (`@roamhq/wrtc`) peer connection whose
 * other end is a werift peer connection in the same process: the tap. Every RTP packet the tap
 * receives goes to the subscriptions listening, which forward it over their own (werift) peer
 * connections to the viewers. The stage runs three encoders however many viewers watch, as an
 * SFU does with its publishers' streams.
 *
 * A new viewer asks for a key frame (`requestKeyFrame`): a PLI to the encoder, and the camera's
 * latest frame handed to it at once, so the key frame leaves within an encode time rather than
 * at the camera's next tick. One PLI serves every viewer that joins while it is pending.
 */
import {
  RTCPeerConnection as TapPeerConnection,
  RTCRtpCodecParameters,
  type RtpPacket,
} from 'werift';
import type { CabinAudio } from './cabin-audio';
import type { Camera } from './camera';
import { withSessionIceLite, withVideoBitrate } from './sdp';
import { isVp8KeyFrameStart } from './vp8';
import {
  RTCPeerConnection,
  RTCVideoSource,
  type NodeMediaStreamTrack,
  type NodePeerConnection,
  type NodeVideoSource,
} from './wrtc';

/**
 * What the viewers of 360p30 get: enough for the scene's detail, little for their decoders. Set
 * in the answer the encoder receives: the tap sends no congestion feedback, so without a start
 * figure the encoder would stay at its 300 kbit/s default.
 */
const FEED_VIDEO_KBPS = { start: 700, max: 900 } as const;
/** A key frame asked for and not seen within this time is asked for again. */
const KEY_FRAME_PENDING_MS = 250;
const RESTART_DELAY_MS = 1_000;
/** Time for the encoder to take in a PLI before it is handed the frame to make a key frame of. */
const PLI_SETTLE_MS = 2;

export interface FeedListener {
  readonly media: { audio: boolean; video: boolean };
  /** A video packet; `keyFrameStart` when it opens a key frame. The packet is the listener's. */
  onVideoPacket(packet: RtpPacket, keyFrameStart: boolean): void;
  onAudioPacket(packet: RtpPacket): void;
}

export class CameraFeed {
  private readonly camera: Camera;
  private readonly audio: CabinAudio;
  private readonly source: NodeVideoSource = new RTCVideoSource();
  private readonly videoTrack: NodeMediaStreamTrack = this.source.createTrack();
  private readonly listeners = new Set<FeedListener>();
  private readonly log: (message: string, detail?: unknown) => void;
  private encoder: NodePeerConnection | undefined;
  private tap: TapPeerConnection | undefined;
  private videoSsrc: number | undefined;
  private keyFrameRequestedAt: number | undefined;
  private readyPromise: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: {
    camera: Camera;
    audio: CabinAudio;
    log?: (message: string, detail?: unknown) => void;
  }) {
    this.camera = options.camera;
    this.audio = options.audio;
    this.log = options.log ?? (() => undefined);
  }

  /** Connects the encoder to the tap (once; again after a failure). */
  ready(): Promise<void> {
    this.readyPromise ??= this.connect().catch((error: unknown) => {
      this.readyPromise = undefined;
      throw error;
    });
    return this.readyPromise;
  }

  /** The encoder reaches its tap now (false while it reconnects, and once closed). */
  get connected(): boolean {
    return !this.closed && this.tap?.connectionState === 'connected';
  }

  /** Viewers receiving the video (audio-only listeners are not counted). */
  get videoListenerCount(): number {
    let count = 0;
    for (const listener of this.listeners) if (listener.media.video) count += 1;
    return count;
  }

  /** Starts sending to `listener`. False when the camera is off air. */
  add(listener: FeedListener): boolean {
    if (listener.media.video && !this.camera.attach(this.source)) return false;
    this.listeners.add(listener);
    if (listener.media.audio) this.audio.listen(listener);
    return true;
  }

  remove(listener: FeedListener): void {
    if (!this.listeners.delete(listener)) return;
    this.audio.release(listener);
    if (![...this.listeners].some((other) => other.media.video)) this.camera.detach(this.source);
  }

  /** Asks the encoder for a key frame now, unless one asked for is still on its way. */
  requestKeyFrame(): void {
    const now = performance.now();
    if (
      this.keyFrameRequestedAt !== undefined &&
      now - this.keyFrameRequestedAt < KEY_FRAME_PENDING_MS
    ) {
      return;
    }
    const receiver = this.tap
      ?.getTransceivers()
      .find((transceiver) => transceiver.kind === 'video')?.receiver;
    const ssrc = this.videoSsrc;
    // Before the encoder's first packet there is nothing to refresh: its first frame is a key frame.
    if (!receiver || ssrc === undefined) return;
    this.keyFrameRequestedAt = now;
    // The frame goes to the encoder once the PLI is on its way: handed over before, it would be
    // encoded as a delta frame and the key frame would wait for the camera's next tick.
    void receiver
      .sendRtcpPLI(ssrc)
      .catch(() => undefined)
      .then(() => setTimeout(() => this.camera.sendLatestFrame(this.source), PLI_SETTLE_MS));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.restartTimer);
    this.listeners.clear();
    this.camera.detach(this.source);
    this.teardown();
    this.videoTrack.stop();
  }

  private async connect(): Promise<void> {
    const encoder = new RTCPeerConnection({ iceServers: [] });
    const tap = new TapPeerConnection({
      codecs: {
        video: [
          new RTCRtpCodecParameters({
            mimeType: 'video/VP8',
            clockRate: 90_000,
            rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }],
          }),
        ],
        audio: [
          new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 }),
        ],
      },
      headerExtensions: { video: [], audio: [] },
      // ICE lite: no candidate gathering beyond the host's own (werift would otherwise ask a
      // public STUN server), the encoder's libwebrtc runs the checks.
      iceServers: [],
      iceLite: true,
      iceUseIpv6: false,
      bundlePolicy: 'max-bundle',
    });
    this.encoder = encoder;
    this.tap = tap;
    encoder.addTransceiver(this.videoTrack, { direction: 'sendonly' });
    encoder.addTransceiver(this.audio.track, { direction: 'sendonly' });
    encoder.onicecandidate = ({ candidate }) => {
      if (candidate?.candidate) void tap.addIceCandidate(candidate).catch(() => undefined);
    };
    // The track's SSRC and receiver are not always known when werift announces it: the video's
    // SSRC is taken from its packets, the receiver from the video transceiver when a PLI is sent.
    tap.onTrack.subscribe((track) => {
      if (track.kind === 'video') track.onReceiveRtp.subscribe((packet) => this.onVideo(packet));
      else if (track.kind === 'audio') {
        track.onReceiveRtp.subscribe((packet) => this.onAudio(packet));
      }
    });
    const connected = new Promise<void>((resolve, reject) => {
      tap.connectionStateChange.subscribe((state) => {
        if (state === 'connected') resolve();
        if (state === 'failed' || state === 'disconnected') {
          reject(new Error(`camera feed ${state}`));
          this.scheduleRestart(state);
        }
      });
    });
    const offer = await encoder.createOffer();
    await encoder.setLocalDescription(offer);
    await tap.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
    await tap.setLocalDescription(await tap.createAnswer());
    const answer = tap.localDescription?.sdp ?? '';
    await encoder.setRemoteDescription({
      type: 'answer',
      sdp: withVideoBitrate(withSessionIceLite(answer), FEED_VIDEO_KBPS),
    });
    await connected;
  }

  private onVideo(packet: RtpPacket): void {
    if (packet.payload.length === 0) return; // padding
    const keyFrameStart = isVp8KeyFrameStart(packet.payload);
    this.videoSsrc = packet.header.ssrc;
    if (keyFrameStart) this.keyFrameRequestedAt = undefined;
    stripExtensions(packet);
    for (const listener of this.listeners) {
      if (listener.media.video) listener.onVideoPacket(packet.clone(), keyFrameStart);
    }
  }

  private onAudio(packet: RtpPacket): void {
    if (packet.payload.length === 0) return;
    stripExtensions(packet);
    for (const listener of this.listeners) {
      if (listener.media.audio) listener.onAudioPacket(packet.clone());
    }
  }

  private scheduleRestart(state: string): void {
    if (this.closed || this.restartTimer) return;
    this.log(`camera feed ${this.camera.streamId} ${state}; reconnecting`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.closed) return;
      this.teardown();
      this.readyPromise = undefined;
      this.ready().catch((error: unknown) => this.log('camera feed reconnect failed', error));
    }, RESTART_DELAY_MS);
  }

  private teardown(): void {
    this.videoSsrc = undefined;
    if (this.encoder) {
      this.encoder.onicecandidate = null;
      this.encoder.close();
    }
    void this.tap?.close();
    this.encoder = undefined;
    this.tap = undefined;
  }
}

/** The encoder's header extensions mean nothing on the viewers' connections. */
function stripExtensions(packet: RtpPacket): void {
  packet.header.extension = false;
  packet.header.extensions = [];
}
