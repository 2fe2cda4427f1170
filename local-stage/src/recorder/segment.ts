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
  Mp4OutputFormat,
  Output,
  WebMOutputFormat,
} from 'mediabunny';
import type { SegmentContainer } from '@tailcam/protocol/recordings';
import type { StageLogger } from '../stage-log';

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

/** A segment whose writes fall this far behind is given up (the disk does not keep up). */
const MAX_QUEUED_FRAMES = 600;

/**
 * WebM's finished file, muxed beside the `.part` from the same packets (decision 0085): the
 * `.part` leaves its Clusters' sizes unknown so that it can be read while it grows, which
 * Firefox's Media Source Extensions do not take (a SourceBuffer stays inside the last Cluster, so
 * the next segment's timestampOffset throws, and bytes appended mid-Cluster stall it). The
 * finished file has its sizes, Duration and Cues, as the Recordings page, downloads and Firefox
 * take it. Held in memory (a segment is a few hundred kB) and written when whole.
 */
interface FinishedWebM {
  output: Output;
  target: BufferTarget;
  videoSource: EncodedVideoPacketSource | undefined;
  audioSource: EncodedAudioPacketSource | undefined;
}

export class Segment {
  readonly output: Output;
  readonly videoSource: EncodedVideoPacketSource | undefined;
  readonly audioSource: EncodedAudioPacketSource | undefined;
  private readonly finishedWebM: FinishedWebM | undefined;
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
    this.output = new Output({
      // Append-only, written as it is muxed (decision 0085): the API serves the `.part` while it
      // grows, so a byte once in the file must never change. WebM with `appendOnly` leaves the
      // Segment's and each Cluster's size unknown and writes no Duration or SeekHead (the Cues
      // still go at the end; the finished file is muxed beside it: FinishedWebM); fragmented MP4
      // only appends (moov with the first fragment, each moof + mdat whole, the mfra last). Unchunked, the target hands each flush to the file at
      // once (chunked, FilePathTarget's default, it held 16 MiB: the whole segment until the
      // end), and mediabunny throws on any write behind the last flush's end.
      format:
        container === 'mp4'
          ? new Mp4OutputFormat({ fastStart: 'fragmented', minimumFragmentDuration: 0.5 })
          : new WebMOutputFormat({ minimumClusterDuration: 0.5, appendOnly: true }),
      target: new FilePathTarget(partPath, { chunked: false }),
    });
    if (video) {
      this.videoSource = new EncodedVideoPacketSource(video === 'h264' ? 'avc' : 'vp8');
      // No frame rate: WebM would carry it as the track's DefaultDuration, which a browser takes
      // as every frame's length, so a frame the encoder held longer (a camera under load, a
      // skipped frame) left a hole in the buffered range where a seek never completed. Without
      // it each frame lasts until the next.
      this.output.addVideoTrack(this.videoSource);
    }
    if (audio) {
      this.audioSource = new EncodedAudioPacketSource('opus');
      this.output.addAudioTrack(this.audioSource);
    }
    this.finishedWebM = container === 'webm' ? finishedWebM(video, audio) : undefined;
    this.enqueue(() => Promise.all([this.output.start(), this.finishedWebM?.output.start()]));
  }

  /**
   * WebM: the finished file's bytes (sizes known), to be written under the segment's name while
   * the `.part` stays for its readers; undefined for MP4, whose `.part` is the finished file.
   */
  get finishedBytes(): Uint8Array | undefined {
    const buffer = this.finishedWebM?.target.buffer;
    return buffer ? new Uint8Array(buffer) : undefined;
  }

  get broken(): boolean {
    return this.failed;
  }

  writeVideo(frame: PendingFrame, durationMs: number): void {
    const source = this.videoSource;
    if (!source) return;
    const packet = new EncodedPacket(
      frame.data,
      frame.keyFrame ? 'key' : 'delta',
      (frame.atMs - this.startMs) / 1000,
      Math.max(1, durationMs) / 1000,
    );
    const meta = this.videoConfigured ? undefined : { decoderConfig: this.videoConfig() };
    this.videoConfigured = true;
    this.endMs = Math.max(this.endMs, frame.atMs + durationMs);
    const copy = this.finishedWebM?.videoSource;
    this.enqueue(() =>
      Promise.all([source.add(packet, meta as never), copy?.add(packet, meta as never)]),
    );
    // The muxer writes a frame once every track has reached its time: audio that does not come
    // (a camera nobody listens to sends none) would hold every frame until the segment ends, and
    // the segment being written (decision 0085) would be readable only when whole. Silence fills
    // what is AUDIO_WAIT_MS older than this frame; sound arriving later than that is dropped.
    this.fillSilence(frame.atMs - AUDIO_WAIT_MS);
  }

  writeAudio(frame: PendingFrame, durationMs: number): void {
    if (!this.audioSource) return;
    this.fillSilence(frame.atMs);
    if (frame.atMs < this.audioEndMs - 1) return; // overlaps what is written: dropped
    this.addAudio(frame, durationMs);
  }

  /**
   * Silence from where the audio ends to `untilMs`: short of it by less than 2.5 ms, or (`cover`,
   * at the segment's end) past it by less than that.
   */
  private fillSilence(untilMs: number, cover = false): void {
    if (!this.audioSource) return;
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
    const source = this.audioSource;
    if (!source) return;
    this.audioEndMs = frame.atMs + durationMs;
    const packet = new EncodedPacket(
      frame.data,
      'key',
      (frame.atMs - this.startMs) / 1000,
      Math.max(1, durationMs) / 1000,
    );
    const meta = this.audioConfigured
      ? undefined
      : {
          decoderConfig: {
            codec: 'opus',
            numberOfChannels: 2,
            sampleRate: 48_000,
            description: OPUS_HEAD,
          },
        };
    this.audioConfigured = true;
    if (!this.videoSource) this.endMs = Math.max(this.endMs, frame.atMs + durationMs);
    const copy = this.finishedWebM?.audioSource;
    this.enqueue(() => Promise.all([source.add(packet, meta), copy?.add(packet, meta)]));
  }

  /** Writes what is held, finalizes; resolves true when the file is whole. */
  async finish(): Promise<boolean> {
    if (this.videoSource) this.fillSilence(this.endMs, true);
    await this.enqueue(() =>
      Promise.all([this.output.finalize(), this.finishedWebM?.output.finalize()]),
    );
    return !this.failed;
  }

  abandon(): void {
    this.failed = true;
    void this.output.cancel().catch(() => undefined);
    void this.finishedWebM?.output.cancel().catch(() => undefined);
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

function finishedWebM(video: 'vp8' | 'h264' | undefined, audio: boolean): FinishedWebM {
  const target = new BufferTarget();
  const output = new Output({
    format: new WebMOutputFormat({ minimumClusterDuration: 0.5 }),
    target,
  });
  const videoSource = video ? new EncodedVideoPacketSource('vp8') : undefined;
  if (videoSource) output.addVideoTrack(videoSource);
  const audioSource = audio ? new EncodedAudioPacketSource('opus') : undefined;
  if (audioSource) output.addAudioTrack(audioSource);
  return { output, target, videoSource, audioSource };
}

export interface VideoDecoderConfigLike {
  codec: string;
  codedWidth: number;
  codedHeight: number;
}
