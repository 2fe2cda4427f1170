/**
 * The recorder's subscription to one aircraft (docs/decisions/0072-recorder.md): a WHEP session
 * like any player's, from a werift peer that hands over the RTP packets as they come (nothing is
 * decoded), with a token whose `user_id` is the recorder's, so the stage counts it as no viewer.
 * Its frames go to a SpanWriter while it is told to write (`write(true)`: a real encoder always, a
 * synthetic camera while a person watches it; decision 0084), a span per stretch of writing, and
 * are dropped otherwise (a camera woken for the thumbnails). It ends when its connection does, or
 * when told to.
 */
import { randomUUID } from 'node:crypto';
import type { RTCPeerConnection, RTCRtpTransceiver, RtpPacket } from 'werift';
import { issueParticipantToken, RECORDER_USER_ID } from '@tailcam/protocol/participant-token';
import type { StageLogger } from '../stage-log';
import { FrameAssembler, type TrackCodec } from '../codecs/rtp-frames';
import type { PreviewMaker } from './segment-previews';
import { SpanWriter } from './span-writer';
import { deleteWhepSession, postWhepOffer, requestKeyFrame, whepPeer } from '../whep-client';

export interface WhepRecordingOptions {
  stageUrl: string;
  stageId: string;
  secret: Uint8Array;
  publisher: 'camera' | 'encoder';
  stageDir: string;
  segmentMs: number;
  mayStartSegment: () => boolean;
  log: StageLogger;
  onSegment?: (path: string, durationMs: number) => void;
  /** Each segment's preview (segment-previews.ts); none without. */
  preview?: PreviewMaker;
  /** Whether to write from the start (see `write`). */
  writing: boolean;
  /** The session ended (its connection failed or closed); not called after `close()`. */
  onEnded: () => void;
}

export class WhepRecording {
  private readonly peer: RTCPeerConnection;
  private readonly video: RTCRtpTransceiver;
  private readonly audio: RTCRtpTransceiver | undefined;
  /** The span being written, while writing. */
  private writer: SpanWriter | undefined;
  /** Spans being finished (their last segment), awaited by `close()`. */
  private readonly closing = new Set<Promise<void>>();
  /** Segments finished by spans before the current one. */
  private earlierSegments = 0;
  private writing: boolean;
  /** What the stage answered: set once `start()` has applied its answer. */
  private tracks: { video: 'vp8' | 'h264' | undefined; audio: boolean } | undefined;
  private location: URL | undefined;
  private token = '';
  private ended = false;

  constructor(private readonly options: WhepRecordingOptions) {
    const { peer, video, audio } = whepPeer({
      audio: true,
      h264Parameters: 'packetization-mode=1;profile-level-id=42e01f;level-asymmetry-allowed=1',
    });
    this.peer = peer;
    this.video = video;
    this.audio = audio;
    this.writing = options.writing;
  }

  get segments(): number {
    return this.earlierSegments + (this.writer?.segments ?? 0);
  }

  /**
   * Writes the frames from now on (a new span, starting at the next key frame), or stops: the
   * span's last segment is finished, and frames are dropped until told to write again.
   */
  write(writing: boolean): void {
    this.writing = writing;
    if (this.ended || !this.tracks) return;
    if (writing && !this.writer) {
      this.writer = this.newSpan(this.tracks);
    } else if (!writing && this.writer) {
      const writer = this.writer;
      this.writer = undefined;
      const done = writer.close().then(() => {
        this.earlierSegments += writer.segments;
        this.closing.delete(done);
      });
      this.closing.add(done);
    }
  }

  /** Posts the offer; resolves once the answer is applied (throws with the stage's refusal). */
  async start(): Promise<void> {
    const { stageUrl, stageId } = this.options;
    const { video, audio } = this;
    await this.peer.setLocalDescription(await this.peer.createOffer());
    // All candidates in the offer (loopback: gathering is immediate).
    await new Promise<void>((resolve) => {
      if (this.peer.iceGatheringState === 'complete') return resolve();
      const timer = setTimeout(resolve, 2_000);
      this.peer.iceGatheringStateChange.subscribe((state) => {
        if (state !== 'complete') return;
        clearTimeout(timer);
        resolve();
      });
    });
    this.token = await issueParticipantToken({
      secret: this.options.secret,
      participantId: randomUUID(),
      stageId,
      userId: RECORDER_USER_ID,
      attributes: {},
      capabilities: { publish: false, subscribe: true },
      stageBaseUrl: `${stageUrl}/stage`,
      ttlSeconds: 300,
    });
    const { status, body, location } = await postWhepOffer({
      stageUrl,
      stageId,
      token: this.token,
      offer: this.peer.localDescription?.sdp ?? '',
      timeoutMs: 10_000,
    });
    if (status !== 201) {
      this.peer.close().catch(() => undefined);
      throw new Error(`WHEP ${status}: ${body.slice(0, 200)}`);
    }
    this.location = location;
    this.peer.connectionStateChange.subscribe((state) => {
      if (state === 'failed' || state === 'closed') this.end();
    });
    // werift announces the tracks while it applies the answer: listen first, route once known.
    let onVideo: (packet: RtpPacket) => void = () => undefined;
    let onAudio: (packet: RtpPacket) => void = () => undefined;
    video.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => onVideo(rtp)));
    audio?.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => onAudio(rtp)));
    await this.peer.setRemoteDescription({ type: 'answer', sdp: body });
    const videoCodec = video.currentDirection === 'inactive' ? undefined : this.negotiated(video);
    // The stage answers `inactive` for what its publisher does not send.
    const hasAudio =
      audio !== undefined &&
      this.negotiated(audio) === 'opus' &&
      audio.currentDirection !== 'inactive';
    this.tracks = {
      video: videoCodec === 'vp8' || videoCodec === 'h264' ? videoCodec : undefined,
      audio: hasAudio,
    };
    this.write(this.writing);
    if (videoCodec === 'vp8' || videoCodec === 'h264') {
      const frames = new FrameAssembler(
        videoCodec,
        90_000,
        (frame) => this.writer?.video(frame),
        // A key frame is asked for only for a span being written.
        () => {
          if (this.writer) requestKeyFrame(video);
        },
      );
      onVideo = (packet) => frames.push(packet);
    }
    if (hasAudio) {
      const frames = new FrameAssembler('opus', 48_000, (frame) => this.writer?.audio(frame));
      onAudio = (packet) => frames.push(packet);
    }
  }

  private newSpan(tracks: { video: 'vp8' | 'h264' | undefined; audio: boolean }): SpanWriter {
    return new SpanWriter({
      stageDir: this.options.stageDir,
      video: tracks.video,
      audio: tracks.audio,
      publisher: this.options.publisher,
      segmentMs: this.options.segmentMs,
      requestKeyFrame: () => requestKeyFrame(this.video),
      mayStartSegment: this.options.mayStartSegment,
      log: this.options.log,
      onSegment: this.options.onSegment,
      ...(this.options.preview ? { preview: this.options.preview } : {}),
    });
  }

  /** Ends the session (DELETE, best effort) and finishes the segment being written. */
  async close(): Promise<void> {
    this.ended = true;
    if (this.location) await deleteWhepSession({ url: this.location, token: this.token }, 2_000);
    await this.peer.close().catch(() => undefined);
    await this.writer?.close();
    await Promise.all(this.closing);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    void this.writer?.close();
    this.peer.close().catch(() => undefined);
    this.options.onEnded();
  }

  private negotiated(transceiver: RTCRtpTransceiver): TrackCodec | undefined {
    const mime = transceiver.codecs[0]?.mimeType.toLowerCase();
    if (mime === 'video/vp8') return 'vp8';
    if (mime === 'video/h264') return 'h264';
    if (mime === 'audio/opus') return 'opus';
    return undefined;
  }
}
