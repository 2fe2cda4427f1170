/**
 * One segment of a span being written (docs/decisions/0072-recorder.md): a whole WebM or
 * fragmented MP4 file of its own, muxed by mediabunny without decoding anything, its writes queued
 * in order, its audio covered with Opus silence where the publisher sent none. span-writer.ts cuts
 * a span into these and names their files.
 */
import {
  BufferTarget,
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  FilePathTarget,
  Output,
  WebMOutputFormat,
} from 'mediabunny';
import type { SegmentContainer } from '@tailcam/protocol/recordings';
import type { StageLogger } from '../stage-log';
import { Fmp4Fragments } from './fmp4-fragments';

export interface PendingFrame {
  data: Uint8Array;
  keyFrame: boolean;
  /** Span time, ms. */
  atMs: number;
}

/**
 * Opus packets of silence (TOC: CELT, full band, one frame of 20, 10, 5 or 2.5 ms; RFC 6716 3.1;
 * then the range coder's silence flag), written where the publisher sent no sound (a camera
 * nobody listens to, DTX, a lost packet): a browser's MediaSource buffers what every track covers,
 * so a gap in the audio, even of a few ms, is a hole where playback and a seek stop. The shorter
 * ones fill what is left of a gap that is no whole 20 ms (a segment starts on a video frame).
 */
const OPUS_SILENCES = [
  { ms: 20, data: new Uint8Array([0xf8, 0xff, 0xfe]) },
  { ms: 10, data: new Uint8Array([0xf0, 0xff, 0xfe]) },
  { ms: 5, data: new Uint8Array([0xe8, 0xff, 0xfe]) },
  { ms: 2.5, data: new Uint8Array([0xe0, 0xff, 0xfe]) },
] as const;
/** Float slack in ms comparisons. */
const EPSILON_MS = 0.01;
/**
 * The Opus identification header (RFC 7845 §5.1) a WebM track needs as its CodecPrivate: Firefox
 * refuses a track without one (Chromium plays it). Two channels at 48 kHz, as WebRTC's Opus;
 * libopus's look-ahead at 48 kHz (312 samples) as the pre-skip; no gain, mapping family 0.
 */
export const OPUS_HEAD = (() => {
  const head = new Uint8Array(19);
  const view = new DataView(head.buffer);
  head.set(new TextEncoder().encode('OpusHead'));
  view.setUint8(8, 1); // version
  view.setUint8(9, 2); // channels
  view.setUint16(10, 312, true); // pre-skip
  view.setUint32(12, 48_000, true); // input sample rate
  view.setInt16(16, 0, true); // output gain
  view.setUint8(18, 0); // channel mapping family
  return head;
})();

/**
 * How long sound may lag the picture before the recorder writes silence for it (ms): longer than
 * WebRTC's audio and video ever drift apart on arrival, short enough that the segment being
 * written is readable a fraction of a second after its frames arrive.
 */
const AUDIO_WAIT_MS = 250;

/** Opus's decoder configuration, as WebRTC sends it. */
const OPUS_CONFIG = {
  codec: 'opus' as const,
  numberOfChannels: 2,
  sampleRate: 48_000,
  description: OPUS_HEAD,
};

/** A segment whose writes fall this far behind is given up (the disk does not keep up). */
const MAX_QUEUED_FRAMES = 600;

export class Segment {
  private readonly muxer: SegmentMuxer;
  private readonly hasVideo: boolean;
  private readonly hasAudio: boolean;
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private failed = false;
  private videoConfigured = false;
  private audioConfigured = false;
  pendingVideo: PendingFrame | undefined;
  pendingAudio: PendingFrame | undefined;
  endMs: number;
  /** Where the audio written so far ends (span time, ms). */
  private audioEndMs: number;

  constructor(
    readonly partPath: string,
    readonly startMs: number,
    readonly container: SegmentContainer,
    readonly video: 'vp8' | 'h264' | undefined,
    audio: boolean,
    private readonly videoConfig: () => VideoDecoderConfigLike | undefined,
    private readonly log: StageLogger,
  ) {
    this.endMs = startMs;
    this.audioEndMs = startMs;
    this.hasVideo = video !== undefined;
    this.hasAudio = audio;
    // Append-only, written as it is muxed (decision 0085): the API serves the `.part` while it
    // grows, so a byte once in the file must never change.
    this.muxer =
      container === 'mp4'
        ? mp4Muxer(partPath, video ? videoConfig() : undefined, audio)
        : webmMuxer(partPath, this.hasVideo, audio);
    this.enqueue(() => this.muxer.start());
  }

  /**
   * WebM: the finished file's bytes (sizes known), to be written under the segment's name while
   * the `.part` stays for its readers; undefined for MP4, whose `.part` is the finished file.
   */
  get finishedBytes(): Uint8Array | undefined {
    return this.muxer.finishedBytes();
  }

  get broken(): boolean {
    return this.failed;
  }

  writeVideo(frame: PendingFrame, durationMs: number): void {
    if (!this.hasVideo) return;
    const packet = new EncodedPacket(
      frame.data,
      frame.keyFrame ? 'key' : 'delta',
      (frame.atMs - this.startMs) / 1000,
      Math.max(1, durationMs) / 1000,
    );
    const meta = this.videoConfigured ? undefined : { decoderConfig: this.videoConfig() };
    this.videoConfigured = true;
    this.endMs = Math.max(this.endMs, frame.atMs + durationMs);
    this.enqueue(() => this.muxer.addVideo(packet, meta));
    // The muxer writes a frame once every track has reached its time: audio that does not come
    // (a camera nobody listens to sends none) would hold every frame until the segment ends, and
    // the segment being written (decision 0085) would be readable only when whole. Silence fills
    // what is AUDIO_WAIT_MS older than this frame; sound arriving later than that is dropped.
    this.fillSilence(frame.atMs - AUDIO_WAIT_MS);
  }

  writeAudio(frame: PendingFrame, durationMs: number): void {
    if (!this.hasAudio) return;
    this.fillSilence(frame.atMs);
    if (frame.atMs < this.audioEndMs - 1) return; // overlaps what is written: dropped
    this.addAudio(frame, durationMs);
  }

  /**
   * Silence from where the audio ends to `untilMs`: short of it by less than 2.5 ms, or (`cover`,
   * at the segment's end) past it by less than that.
   */
  private fillSilence(untilMs: number, cover = false): void {
    if (!this.hasAudio) return;
    for (const silence of OPUS_SILENCES) {
      while (untilMs - this.audioEndMs >= silence.ms - EPSILON_MS) {
        this.addAudio({ data: silence.data, keyFrame: true, atMs: this.audioEndMs }, silence.ms);
      }
    }
    const shortest = OPUS_SILENCES[3];
    if (cover && untilMs - this.audioEndMs > EPSILON_MS) {
      this.addAudio({ data: shortest.data, keyFrame: true, atMs: this.audioEndMs }, shortest.ms);
    }
  }

  private addAudio(frame: PendingFrame, durationMs: number): void {
    if (!this.hasAudio) return;
    this.audioEndMs = frame.atMs + durationMs;
    const packet = new EncodedPacket(
      frame.data,
      'key',
      (frame.atMs - this.startMs) / 1000,
      Math.max(1, durationMs) / 1000,
    );
    const meta = this.audioConfigured ? undefined : { decoderConfig: OPUS_CONFIG };
    this.audioConfigured = true;
    if (!this.hasVideo) this.endMs = Math.max(this.endMs, frame.atMs + durationMs);
    this.enqueue(() => this.muxer.addAudio(packet, meta));
  }

  /** Writes what is held, finalizes; resolves true when the file is whole. */
  async finish(): Promise<boolean> {
    if (this.hasVideo) this.fillSilence(this.endMs, true);
    await this.enqueue(() => this.muxer.finish());
    return !this.failed;
  }

  abandon(): void {
    this.failed = true;
    void this.muxer.cancel().catch(() => undefined);
  }

  private enqueue(step: () => Promise<unknown>): Promise<unknown> {
    if (this.failed) return this.queue;
    this.queued += 1;
    if (this.queued > MAX_QUEUED_FRAMES) {
      this.log.error(`recording ${this.partPath}: the disk does not keep up; segment dropped`);
      this.abandon();
      return this.queue;
    }
    this.queue = this.queue
      .then(() => (this.failed ? undefined : step()))
      .catch((error: unknown) => {
        if (!this.failed) this.log.error({ err: error }, `recording ${this.partPath} failed`);
        this.failed = true;
      })
      .finally(() => {
        this.queued -= 1;
      });
    return this.queue;
  }
}

/** What muxes a segment's packets into its `.part` (and, for WebM, its finished file). */
interface SegmentMuxer {
  start(): Promise<unknown>;
  addVideo(packet: EncodedPacket, meta: { decoderConfig: unknown } | undefined): Promise<unknown>;
  addAudio(packet: EncodedPacket, meta: { decoderConfig: unknown } | undefined): Promise<unknown>;
  finish(): Promise<unknown>;
  cancel(): Promise<unknown>;
  /** WebM: the finished file's bytes, once finished; undefined for MP4 (the `.part` is it). */
  finishedBytes(): Uint8Array | undefined;
}

/**
 * WebM: the `.part` muxed append-only (decision 0085: Segment and Clusters of unknown size, no
 * Duration or SeekHead, the Cues at the end), each flush in the file at once (FilePathTarget
 * gathers 16 MiB by default: the whole segment until its end), and mediabunny throws on a write
 * behind the last flush's end; and the finished file muxed beside it from the same packets, with
 * its sizes, Duration and Cues, in memory until written: Firefox's Media Source Extensions do not
 * take an unknown-size Cluster as the Recordings page appends it (a SourceBuffer stays inside the
 * last one, so the next segment's timestampOffset throws).
 * No frame rate on the video track: WebM would carry it as the track's DefaultDuration, which a
 * browser takes as every frame's length, so a frame the encoder held longer (a camera under load,
 * a skipped frame) left a hole in the buffered range where a seek never completed (decision 0075).
 */
function webmMuxer(partPath: string, video: boolean, audio: boolean): SegmentMuxer {
  const make = (appendOnly: boolean, target: FilePathTarget | BufferTarget) => {
    const output = new Output({
      format: new WebMOutputFormat({ minimumClusterDuration: 0.5, appendOnly }),
      target,
    });
    const videoSource = video ? new EncodedVideoPacketSource('vp8') : undefined;
    if (videoSource) output.addVideoTrack(videoSource);
    const audioSource = audio ? new EncodedAudioPacketSource('opus') : undefined;
    if (audioSource) output.addAudioTrack(audioSource);
    return { output, videoSource, audioSource };
  };
  const finishedTarget = new BufferTarget();
  const both = [
    make(true, new FilePathTarget(partPath, { chunked: false })),
    make(false, finishedTarget),
  ];
  return {
    start: () => Promise.all(both.map(({ output }) => output.start())),
    addVideo: (packet, meta) =>
      Promise.all(both.map(({ videoSource }) => videoSource?.add(packet, meta as never))),
    addAudio: (packet, meta) =>
      Promise.all(both.map(({ audioSource }) => audioSource?.add(packet, meta as never))),
    finish: () => Promise.all(both.map(({ output }) => output.finalize())),
    cancel: () => Promise.all(both.map(({ output }) => output.cancel())),
    finishedBytes: () => {
      const buffer = finishedTarget.buffer;
      return buffer ? new Uint8Array(buffer) : undefined;
    },
  };
}

/** Fragmented MP4, a fragment every FRAGMENT_MS of video (fmp4-fragments.ts, decision 0085). */
function mp4Muxer(
  partPath: string,
  videoConfig: VideoDecoderConfigLike | undefined,
  audio: boolean,
): SegmentMuxer {
  const fragments = new Fmp4Fragments(partPath, {
    video: videoConfig,
    audio: audio ? OPUS_CONFIG : undefined,
  });
  return {
    start: () => fragments.start(),
    addVideo: (packet) =>
      fragments.addVideo(packet.data, packet.type === 'key', packet.timestamp, packet.duration),
    addAudio: (packet) => fragments.addAudio(packet.data, packet.timestamp, packet.duration),
    finish: () => fragments.finish(),
    cancel: () => fragments.abandon(),
    finishedBytes: () => undefined,
  };
}

export interface VideoDecoderConfigLike {
  codec: string;
  codedWidth: number;
  codedHeight: number;
}
