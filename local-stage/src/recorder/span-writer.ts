/**
 * One span of a recording (docs/decisions/0072-recorder.md): the frames of one unbroken
 * subscription, cut into segments of about `segmentMs` that each start on a video key frame and
 * are whole files of their own (WebM for VP8, fragmented MP4 for H.264, with Opus where the
 * publisher sends sound), muxed by mediabunny without decoding anything. A segment is written as
 * `{offset}.part` and renamed to `{offset}-{duration}.{webm|mp4}` once finalized, so a `kill -9`
 * loses the segment being written and nothing before it.
 *
 * Times: each track's frames carry their media-clock time from the track's first frame; the span
 * places a track's clock at the wall-clock arrival of its first frame, so that audio and video
 * line up within the arrival jitter (tens of ms on loopback).
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  FilePathTarget,
  Mp4OutputFormat,
  Output,
  WebMOutputFormat,
} from 'mediabunny';
import {
  partFileName,
  RECORDING_DIR_MODE,
  RECORDING_FILE_MODE,
  SEGMENT_INDEX_FILE,
  segmentIndexLine,
  SPAN_META_FILE,
  segmentFileName,
  spanName,
  type SegmentContainer,
  type SpanMeta,
} from '@tailcam/protocol/recordings';
import type { StageLogger } from '../stage-log';
import { annexBNalUnits, avcCodecString } from '../codecs/h264';
import { h264SpsSize } from '../codecs/h264-sps';
import { opusPacketDurationMs } from '../codecs/opus';
import type { Frame } from '../codecs/rtp-frames';
import { vp8FrameSize } from '../codecs/vp8';

export interface SpanWriterOptions {
  /** RECORDINGS_DIR/{STAGE}: the span's directory goes in it. */
  stageDir: string;
  video: 'vp8' | 'h264' | undefined;
  audio: boolean;
  publisher: SpanMeta['publisher'];
  /** A segment is cut at the first key frame after this long (and one is asked for then). */
  segmentMs: number;
  /** Asks the publisher for a key frame (a PLI: the stage's limiter paces it). */
  requestKeyFrame: () => void;
  /** False while the free-space floor holds recording: no new segment starts. */
  mayStartSegment: () => boolean;
  log: StageLogger;
  /** A segment was finished and renamed (its path and duration). */
  onSegment?: (path: string, durationMs: number) => void;
  now?: () => number;
}

interface PendingFrame {
  data: Uint8Array;
  keyFrame: boolean;
  /** Span time, ms. */
  atMs: number;
}

/** An Opus packet whose TOC says nothing of its length is taken as 20 ms. */
const DEFAULT_AUDIO_FRAME_MS = 20;
/** A segment's last video frame, with no next one to time it by. */
const DEFAULT_VIDEO_FRAME_MS = 33;
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

/** How long an audio frame plays: its TOC's length (what a browser goes by), else the gap. */
function audioDurationMs(frame: PendingFrame, nextAtMs: number | undefined): number {
  return (
    opusPacketDurationMs(frame.data) ??
    (nextAtMs === undefined ? DEFAULT_AUDIO_FRAME_MS : nextAtMs - frame.atMs)
  );
}

/** A segment whose writes fall this far behind is given up (the disk does not keep up). */
const MAX_QUEUED_FRAMES = 600;
/** A key frame asked for and not come is asked for again after this long. */
const KEY_FRAME_RETRY_MS = 1_000;
/**
 * A segment that has had no frame for this long is finished (the camera went idle, the publisher
 * paused): what was recorded becomes playable rather than wait for the next frame.
 */
const IDLE_FINISH_MS = 1_000;

class Segment {
  readonly output: Output;
  readonly videoSource: EncodedVideoPacketSource | undefined;
  readonly audioSource: EncodedAudioPacketSource | undefined;
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
    readonly video: SpanWriterOptions['video'],
    audio: boolean,
    private readonly videoConfig: () => VideoDecoderConfigLike | undefined,
    private readonly log: StageLogger,
  ) {
    this.endMs = startMs;
    this.audioEndMs = startMs;
    this.output = new Output({
      format:
        container === 'mp4'
          ? new Mp4OutputFormat({ fastStart: 'fragmented', minimumFragmentDuration: 0.5 })
          : new WebMOutputFormat({ minimumClusterDuration: 0.5 }),
      target: new FilePathTarget(partPath),
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
    this.enqueue(() => this.output.start());
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
    this.enqueue(() => source.add(packet, meta as never));
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
    this.enqueue(() => source.add(packet, meta));
  }

  /** Writes what is held, finalizes; resolves true when the file is whole. */
  async finish(): Promise<boolean> {
    if (this.videoSource) this.fillSilence(this.endMs, true);
    await this.enqueue(() => this.output.finalize());
    return !this.failed;
  }

  abandon(): void {
    this.failed = true;
    void this.output.cancel().catch(() => undefined);
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

interface VideoDecoderConfigLike {
  codec: string;
  codedWidth: number;
  codedHeight: number;
}

export class SpanWriter {
  readonly spanStartMs: number;
  readonly dir: string;
  private segment: Segment | undefined;
  private finishing: Promise<unknown>[] = [];
  private videoClockAt: number | undefined;
  private audioClockAt: number | undefined;
  private videoConfig: VideoDecoderConfigLike | undefined;
  private lastKeyFrameAskAt = -Infinity;
  private metaWritten = false;
  private closed = false;
  private lastFrameAt = 0;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly now: () => number;
  /** Segments finished so far. */
  segments = 0;

  constructor(private readonly options: SpanWriterOptions) {
    this.now = options.now ?? Date.now;
    this.spanStartMs = this.now();
    this.dir = join(options.stageDir, spanName(this.spanStartMs));
    this.idleTimer = setInterval(() => {
      if (this.segment && this.now() - this.lastFrameAt > IDLE_FINISH_MS) this.cut(undefined);
    }, IDLE_FINISH_MS / 2);
    this.idleTimer.unref();
  }

  private get container(): SegmentContainer {
    return this.options.video === 'h264' ? 'mp4' : 'webm';
  }

  /** A video frame (from FrameAssembler). */
  video(frame: Frame): void {
    if (this.closed || !this.options.video) return;
    this.lastFrameAt = this.now();
    this.videoClockAt ??= this.now() - this.spanStartMs - frame.timeMs;
    const atMs = this.videoClockAt + frame.timeMs;
    // A key frame of another size (a simulcast layer switch, an encoder's new resolution) starts
    // a segment of its own: a segment's decoder configuration is its first key frame's.
    const sizeChanged = frame.keyFrame && this.learnVideoConfig(frame.data);
    let segment = this.segment;
    if (segment && sizeChanged) {
      this.cut(atMs);
      segment = undefined;
    } else if (segment && atMs - segment.startMs >= this.options.segmentMs) {
      if (frame.keyFrame) {
        this.cut(atMs);
        segment = undefined;
      } else {
        this.askKeyFrame();
      }
    }
    if (!segment) {
      if (!frame.keyFrame || !this.videoConfig) {
        this.askKeyFrame();
        return;
      }
      segment = this.open(atMs);
      if (!segment) return;
    }
    const pending = segment.pendingVideo;
    if (pending) segment.writeVideo(pending, atMs - pending.atMs);
    segment.pendingVideo = { data: frame.data, keyFrame: frame.keyFrame, atMs };
  }

  /** An audio frame (from FrameAssembler). */
  audio(frame: Frame): void {
    if (this.closed || !this.options.audio) return;
    if (!this.options.video) this.lastFrameAt = this.now();
    this.audioClockAt ??= this.now() - this.spanStartMs - frame.timeMs;
    const atMs = this.audioClockAt + frame.timeMs;
    let segment = this.segment;
    if (!this.options.video) {
      // Sound alone: cut on time (every Opus frame stands alone).
      if (segment && atMs - segment.startMs >= this.options.segmentMs) {
        this.cut(atMs);
        segment = undefined;
      }
      segment ??= this.open(atMs);
    }
    if (!segment || atMs < segment.startMs) return;
    const pending = segment.pendingAudio;
    if (pending) segment.writeAudio(pending, audioDurationMs(pending, atMs));
    segment.pendingAudio = { data: frame.data, keyFrame: true, atMs };
  }

  /** Ends the span: the segment being written is finished (a clean stop loses nothing). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.idleTimer);
    if (this.segment) this.cut(undefined);
    await Promise.all(this.finishing);
  }

  private askKeyFrame(): void {
    const now = this.now();
    if (now - this.lastKeyFrameAskAt < KEY_FRAME_RETRY_MS) return;
    this.lastKeyFrameAskAt = now;
    this.options.requestKeyFrame();
  }

  /** Learns the stream's configuration from a key frame; true when it differs from the last. */
  private learnVideoConfig(data: Buffer): boolean {
    const before = this.videoConfig;
    if (this.options.video === 'vp8') {
      const size = vp8FrameSize(data);
      if (size)
        this.videoConfig = { codec: 'vp8', codedWidth: size.width, codedHeight: size.height };
    } else {
      const sps = annexBNalUnits(data).find((nal) => ((nal[0] ?? 0) & 0x1f) === 7);
      const size = sps && h264SpsSize(sps);
      if (sps && size) {
        this.videoConfig = {
          codec: avcCodecString(sps),
          codedWidth: size.width,
          codedHeight: size.height,
        };
      }
    }
    const after = this.videoConfig;
    return (
      before !== undefined &&
      after !== undefined &&
      (before.codec !== after.codec ||
        before.codedWidth !== after.codedWidth ||
        before.codedHeight !== after.codedHeight)
    );
  }

  private open(atMs: number): Segment | undefined {
    if (!this.options.mayStartSegment()) return undefined;
    try {
      // Owner only (the stage's and the span's folders alike): recordings are for signed-in users,
      // not for every local account, wherever RECORDINGS_DIR is.
      mkdirSync(this.dir, { recursive: true, mode: RECORDING_DIR_MODE });
      if (!this.metaWritten) {
        const codecs = [
          ...(this.options.video ? [this.videoConfig?.codec ?? 'vp8'] : []),
          ...(this.options.audio ? ['opus'] : []),
        ].join(',');
        const meta: SpanMeta = {
          container: this.container,
          codecs,
          publisher: this.options.publisher,
        };
        writeFileSync(join(this.dir, SPAN_META_FILE), JSON.stringify(meta), {
          mode: RECORDING_FILE_MODE,
        });
        this.metaWritten = true;
      }
    } catch (error) {
      this.options.log.error({ err: error }, `recording: cannot write in ${this.dir}`);
      return undefined;
    }
    const partPath = join(this.dir, partFileName(atMs));
    try {
      // Created here with its mode, before the muxer opens it ('w' keeps an existing file's mode),
      // so the segment is never readable by others, not even for a moment.
      closeSync(openSync(partPath, 'w', RECORDING_FILE_MODE));
    } catch (error) {
      this.options.log.error({ err: error }, `recording: cannot write in ${this.dir}`);
      return undefined;
    }
    const config = this.videoConfig;
    this.segment = new Segment(
      partPath,
      atMs,
      this.container,
      this.options.video,
      this.options.audio,
      () => config,
      this.options.log,
    );
    this.lastKeyFrameAskAt = -Infinity;
    return this.segment;
  }

  /** Finishes the current segment; `atMs`: where the next one starts (its last frame ends). */
  private cut(atMs: number | undefined): void {
    const segment = this.segment;
    if (!segment) return;
    this.segment = undefined;
    const videoPending = segment.pendingVideo;
    if (videoPending) {
      segment.writeVideo(
        videoPending,
        atMs === undefined ? DEFAULT_VIDEO_FRAME_MS : atMs - videoPending.atMs,
      );
    }
    const audioPending = segment.pendingAudio;
    if (audioPending) segment.writeAudio(audioPending, audioDurationMs(audioPending, undefined));
    const done = segment.finish().then((whole) => {
      if (!whole) {
        rmSync(segment.partPath, { force: true });
        return;
      }
      const durationMs = segment.endMs - segment.startMs;
      const name = segmentFileName({
        offsetMs: segment.startMs,
        durationMs,
        container: this.container,
      });
      const path = join(this.dir, name);
      try {
        renameSync(segment.partPath, path);
        // The API lists from this index rather than reading the directory (decision 0081).
        appendFileSync(
          join(this.dir, SEGMENT_INDEX_FILE),
          segmentIndexLine({
            change: 'added',
            name,
            segment: { offsetMs: segment.startMs, durationMs, container: this.container },
            bytes: statSync(path).size,
          }),
          { mode: RECORDING_FILE_MODE },
        );
        this.segments += 1;
        this.options.onSegment?.(path, durationMs);
      } catch (error) {
        this.options.log.error({ err: error }, `recording: cannot keep ${segment.partPath}`);
      }
    });
    this.finishing.push(done);
    void done.finally(() => {
      this.finishing = this.finishing.filter((other) => other !== done);
    });
  }
}
