/**
 * One aircraft's synthetic camera as a WHIP publisher: its Camera and CabinAudio, encoded by one
 * libwebrtc peer connection (VP8 and Opus, send-only) whose other end is the stage's WHIP session
 * (docs/decisions/0054-cameras-publish-over-whip.md). The session stays up while the camera
 * process is allowed to publish and the stage has not put the cameras to sleep (`setAsleep`,
 * decision 0074: nobody watched for a while); the picture is drawn and encoded only while the stage reports
 * viewers of it (`setDemand`), the sound only while someone listens.
 *
 * With `camera.simulcast` its video is three encodings of the one picture (simulcast.ts), each a
 * layer at the stage, which gives every viewer the one it takes.
 *
 * A failed POST or a peer that fails is retried with backoff. On `requestKeyFrame` (a PLI is on
 * its way over RTCP) the camera's latest frame is handed to the encoder at once, so the key frame
 * leaves within an encode time rather than at the camera's next tick.
 */
import { FlightTelemetry } from './flight-telemetry';
import { backoffPolicy } from '@tailcam/protocol/reconnect-policy';
import { CabinAudio } from './cabin-audio';
import { Camera, type CameraState } from './camera';
import { withVideoBitrate } from './sdp';
import { layersBitrate, simulcastCamera, type CameraLayer } from './simulcast';
import { publishOverWhip, WhipRequestError, type WhipSession } from './whip-client';
import {
  RTCPeerConnection,
  RTCVideoSource,
  type NodeMediaStreamTrack,
  type NodePeerConnection,
  type NodeVideoSource,
} from './wrtc';
import { silentLogger, type StageLogger } from '../stage-log';

/**
 * What the viewers of 360p30 get: enough for the scene's detail, little for their decoders. Set
 * in the answer the encoder receives: the stage gives its own cameras no transport-wide CC
 * (decision 0079), so without a start figure the encoder would stay at its 300 kbit/s default.
 */
const FEED_VIDEO_KBPS = { start: 700, max: 900 } as const;
/** Time for the encoder to take in the PLI before it is handed the frame to make a key frame of. */
const PLI_SETTLE_MS = 2;
/** ICE and DTLS done within this after the answer, or the session is started again. */
const CONNECT_TIMEOUT_MS = 10_000;
/** After a failure: 250 ms, doubling to 10,000 ms (the repo's one backoff shape). */
const RETRY = backoffPolicy({ baseMs: 250, factor: 2, maxMs: 10_000 });
/** The stage's answer while a fault holds this camera off air: wait for `setOnAir(true)`. */
const HELD_OFF_AIR_STATUS = 409;

export type CameraPublishState =
  /** Not publishing: the link to the stage is down (or not up yet). */
  | 'waiting'
  | 'connecting'
  | 'published'
  /** A failure; the next attempt is scheduled. */
  | 'retrying'
  /** A fault injection holds the camera off air. */
  | 'off-air'
  /** The stage put the cameras to sleep: no session until it wakes them. */
  | 'asleep'
  | 'closed';

export interface CameraPublisherStats {
  state: CameraPublishState;
  /** Sessions that reached the stage (1 after start; more after reconnects). */
  sessions: number;
  demand: { video: boolean; audio: boolean };
  camera: CameraState;
  framesDrawn: number;
  meanFrameCostMs: number;
}

export interface CameraPublisherOptions {
  stageId: string;
  /** The aircraft's place in the stream list (its cabin's pitch). */
  streamIndex: number;
  /** `simulcast`: three encodings (simulcast.ts) rather than one. */
  camera: { width: number; height: number; fps: number; idleMs: number; simulcast?: boolean };
  /** The stage's WHIP endpoint for this aircraft. */
  whipUrl: URL;
  /** A fresh PUBLISH token for this aircraft. */
  issueToken: () => Promise<string>;
  /** Sends the aircraft's flight data on the camera link (flight-telemetry.ts); none without. */
  sendInBand?: (message: Buffer) => boolean;
  log?: StageLogger;
}

export class CameraPublisher {
  readonly stageId: string;
  private readonly options: CameraPublisherOptions;
  private readonly camera: Camera;
  private readonly audio: CabinAudio;
  private readonly source: NodeVideoSource = new RTCVideoSource();
  private readonly videoTrack: NodeMediaStreamTrack = this.source.createTrack();
  private readonly log: StageLogger;
  /** Its simulcast encodings; none when it sends one. */
  private readonly layers: CameraLayer[];
  private stateValue: CameraPublishState = 'waiting';
  private peer: NodePeerConnection | undefined;
  private session: WhipSession | undefined;
  /** Bumped whenever the current attempt is abandoned: a late answer to it is thrown away. */
  private attempt = 0;
  private failuresInARow = 0;
  private sessionCount = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private connectTimer: NodeJS.Timeout | undefined;
  private onAir = true;
  private asleep = false;
  private demand = { video: false, audio: false };

  constructor(options: CameraPublisherOptions) {
    this.options = options;
    this.stageId = options.stageId;
    this.log = options.log ?? silentLogger();
    const simulcast = options.camera.simulcast ? simulcastCamera(options.camera) : undefined;
    this.layers = simulcast?.layers ?? [];
    const send = options.sendInBand;
    const telemetry = send && new FlightTelemetry(options.stageId, send, options.camera.fps);
    this.camera = new Camera({
      streamId: options.stageId,
      streamIndex: options.streamIndex,
      ...options.camera,
      ...simulcast?.capture,
      ...(telemetry ? { onFrame: (captureTimeMs) => telemetry.frameCaptured(captureTimeMs) } : {}),
    });
    this.audio = new CabinAudio(options.streamIndex);
    // Fonts and code paths warmed now, so the first viewer's first frame does not pay for them.
    this.camera.warmUp();
  }

  get state(): CameraPublishState {
    return this.stateValue;
  }

  /** Publishes now, in a new session, and again after every failure until `unpublish`. */
  publish(): void {
    if (this.stateValue === 'closed') return;
    this.abandon();
    if (!this.onAir) {
      this.stateValue = 'off-air';
      return;
    }
    if (this.asleep) {
      this.stateValue = 'asleep';
      return;
    }
    this.failuresInARow = 0;
    void this.connect();
  }

  /** Ends the session (the link to the stage is gone, and with it the stage's session). */
  async unpublish(): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.setDemand({ video: false, audio: false });
    // The stage says again which cameras it holds off air when the link opens; a restarted
    // stage holds none.
    this.onAir = true;
    this.stateValue = 'waiting';
    await this.abandon();
  }

  /** A fault injection takes the camera off air, or lets it back (in a new session). */
  setOnAir(onAir: boolean): void {
    if (onAir === this.onAir || this.stateValue === 'closed') return;
    this.onAir = onAir;
    this.log.info(
      `camera ${this.stageId} ${onAir ? 'back on air' : 'off air'} (the stage says so)`,
    );
    if (!onAir) {
      this.setDemand({ video: false, audio: false });
      this.stateValue = 'off-air';
      void this.abandon();
    } else if (this.stateValue === 'off-air') {
      this.publish();
    }
  }

  /**
   * The stage puts the cameras to sleep (the session ends; the camera stays ready) or wakes them
   * (a new session at once). Kept across a reconnect: the stage says it first on every link.
   */
  setAsleep(asleep: boolean): void {
    if (asleep === this.asleep || this.stateValue === 'closed') return;
    this.asleep = asleep;
    if (asleep) {
      this.setDemand({ video: false, audio: false });
      if (this.stateValue === 'waiting' || this.stateValue === 'off-air') return;
      this.stateValue = 'asleep';
      void this.abandon();
    } else if (this.stateValue === 'asleep') {
      this.publish();
    }
  }

  /** Whether the stage has viewers of this camera's video, listeners of its sound. */
  setDemand(demand: { video: boolean; audio: boolean }): void {
    if (demand.video !== this.demand.video) {
      if (demand.video) this.camera.attach(this.source);
      else this.camera.detach(this.source);
    }
    if (demand.audio !== this.demand.audio) {
      if (demand.audio) this.audio.listen(this);
      else this.audio.release(this);
    }
    this.demand = { ...demand };
  }

  /** A viewer waits for a key frame; the stage's PLI is on its way to the encoder. */
  requestKeyFrame(): void {
    // Handed over before the PLI is taken in, the frame would be encoded as a delta frame.
    setTimeout(() => this.camera.sendLatestFrame(this.source), PLI_SETTLE_MS);
  }

  stats(): CameraPublisherStats {
    return {
      state: this.stateValue,
      sessions: this.sessionCount,
      demand: { ...this.demand },
      camera: this.camera.state,
      framesDrawn: this.camera.framesDrawn,
      meanFrameCostMs: Math.round(this.camera.meanFrameCostMs * 100) / 100,
    };
  }

  /** Ends the session and the media for good. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    await this.abandon();
    this.camera.close();
    this.audio.close();
    this.videoTrack.stop();
  }

  private async connect(): Promise<void> {
    const attempt = this.attempt;
    this.stateValue = 'connecting';
    const peer = new RTCPeerConnection({ iceServers: [] });
    this.peer = peer;
    const layers = this.layers;
    peer.addTransceiver(this.videoTrack, {
      direction: 'sendonly',
      ...(layers.length > 0 ? { sendEncodings: layers } : {}),
    });
    peer.addTransceiver(this.audio.track, { direction: 'sendonly' });
    const bitrate = layers.length > 0 ? layersBitrate(layers) : FEED_VIDEO_KBPS;
    peer.onconnectionstatechange = () => {
      if (attempt === this.attempt) this.onPeerState(peer.connectionState);
    };
    try {
      const session = await publishOverWhip({
        endpoint: this.options.whipUrl,
        token: await this.options.issueToken(),
        peer,
        editAnswer: (sdp) => withVideoBitrate(sdp, bitrate),
      });
      if (attempt !== this.attempt) {
        await session.end();
        return;
      }
      this.session = session;
      if (this.stateValue === 'connecting') {
        this.connectTimer = setTimeout(
          () => this.fail('not connected in time'),
          CONNECT_TIMEOUT_MS,
        );
      }
    } catch (error) {
      if (attempt !== this.attempt) return;
      if (error instanceof WhipRequestError && error.status === HELD_OFF_AIR_STATUS) {
        // The link's `on-air` message is on its way (or came first): it brings the camera back.
        this.log.info(`camera ${this.stageId} is held off air by the stage`);
        this.onAir = false;
        this.stateValue = 'off-air';
        void this.abandon();
        return;
      }
      this.fail(error);
    }
  }

  private onPeerState(state: NodePeerConnection['connectionState']): void {
    if (state === 'connected' && this.stateValue !== 'published') {
      clearTimeout(this.connectTimer);
      this.stateValue = 'published';
      this.sessionCount += 1;
      if (this.failuresInARow > 0 || this.sessionCount > 1) {
        this.log.info(`camera ${this.stageId} published again (session ${this.sessionCount})`);
      }
      this.failuresInARow = 0;
    } else if (state === 'failed' || state === 'disconnected' || state === 'closed') {
      // On loopback a disconnection is no passing loss: the stage ended the session or is gone.
      this.fail(`connection ${state}`);
    }
  }

  /** Ends this attempt and schedules the next, later after each failure in a row. */
  private fail(reason: unknown): void {
    if (this.stateValue === 'closed' || this.stateValue === 'waiting') return;
    if (this.stateValue === 'off-air' || this.stateValue === 'asleep') return;
    void this.abandon();
    this.failuresInARow += 1;
    const delay = RETRY.nextDelayMs(this.failuresInARow);
    // Bounded logging: the first failures, then one in ten.
    if (this.failuresInARow <= 3 || this.failuresInARow % 10 === 0) {
      const why = reason instanceof Error ? reason.message : String(reason);
      this.log.warn(`camera ${this.stageId} not published (${why}); again in ${delay} ms`);
    }
    this.stateValue = 'retrying';
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.stateValue === 'retrying') void this.connect();
    }, delay);
  }

  /** Drops the current attempt: its timers, its peer, and its session on the stage. */
  private async abandon(): Promise<void> {
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    clearTimeout(this.connectTimer);
    this.retryTimer = undefined;
    const { peer, session } = this;
    this.peer = undefined;
    this.session = undefined;
    if (peer) {
      peer.onconnectionstatechange = null;
      peer.close();
    }
    await session?.end();
  }
}
