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
  grownFileName,
  partFileName,
  previewFileName,
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
import { FlightSidecar, inBandOf } from './flight-sidecar';
import { Segment, type PendingFrame, type VideoDecoderConfigLike } from './segment';
import type { PreviewMaker } from './segment-previews';
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
  /** Each segment's preview from its first key frame (segment-previews.ts); none without. */
  preview?: PreviewMaker;
  now?: () => number;
}

/** An Opus packet whose TOC says nothing of its length is taken as 20 ms. */
const DEFAULT_AUDIO_FRAME_MS = 20;
/** A segment's last video frame, with no next one to time it by. */
const DEFAULT_VIDEO_FRAME_MS = 33;
/** How long an audio frame plays: its TOC's length (what a browser goes by), else the gap. */
function audioDurationMs(frame: PendingFrame, nextAtMs: number | undefined): number {
  return (
    opusPacketDurationMs(frame.data) ??
    (nextAtMs === undefined ? DEFAULT_AUDIO_FRAME_MS : nextAtMs - frame.atMs)
  );
}

/**
 * A finished WebM segment's `.part` is kept this long (as `.grown`) for its readers (decision
 * 0085): one that read it as it grew reads the rest of the same bytes.
 */
const GROWN_KEEP_MS = 15_000;

/** A key frame asked for and not come is asked for again after this long. */
const KEY_FRAME_RETRY_MS = 1_000;
/**
 * A segment that has had no frame for this long is finished (the camera went idle, the publisher
 * paused): what was recorded becomes playable rather than wait for the next frame.
 */
const IDLE_FINISH_MS = 1_000;

export class SpanWriter {
  readonly spanStartMs: number;
  readonly dir: string;
  private segment: Segment | undefined;
  private finishing: Promise<unknown>[] = [];
  /** Finished WebM segments' `.grown` copies and the timers that remove them. */
  private readonly grown = new Map<string, NodeJS.Timeout>();
  /** Each segment's preview being decoded from the key frame it starts with (decision 0084). */
  private readonly previews = new Map<Segment, Promise<Buffer | undefined>>();
  /** Each segment's flight data, from its frames' in-band messages (decision 0096). */
  private readonly flight = new Map<Segment, FlightSidecar>();
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
    // The frame as published (a VP8 frame without the stage's trailer), and its messages.
    const { data, messages } = inBandOf(this.options.video, frame.data);
    // A key frame of another size (a simulcast layer switch, an encoder's new resolution) starts
    // a segment of its own: a segment's decoder configuration is its first key frame's.
    const sizeChanged = frame.keyFrame && this.learnVideoConfig(data);
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
      this.startPreview(segment, data);
    }
    const pending = segment.pendingVideo;
    if (pending) segment.writeVideo(pending, atMs - pending.atMs);
    segment.pendingVideo = { data, keyFrame: frame.keyFrame, atMs };
    this.flight.get(segment)?.record(atMs - segment.startMs, messages);
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
    // The span has ended: nothing more grows in it, and a reader of the last copy is told to
    // fetch the finished file.
    for (const path of [...this.grown.keys()]) this.dropGrown(path);
  }

  private dropGrown(path: string): void {
    clearTimeout(this.grown.get(path));
    this.grown.delete(path);
    rmSync(path, { force: true });
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
    try {
      // The API finds the segment being written from this line (decision 0085).
      appendFileSync(
        join(this.dir, SEGMENT_INDEX_FILE),
        segmentIndexLine({
          change: 'writing',
          name: partFileName(atMs),
          offsetMs: Math.round(atMs),
        }),
        { mode: RECORDING_FILE_MODE },
      );
    } catch (error) {
      this.options.log.error({ err: error }, `recording: cannot write in ${this.dir}`);
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
    this.flight.set(this.segment, new FlightSidecar(this.dir, atMs, this.options.log));
    return this.segment;
  }

  /** Starts decoding `segment`'s preview from `keyFrame`, the frame it starts with. */
  private startPreview(segment: Segment, keyFrame: Buffer): void {
    const codec = this.options.video;
    const config = this.videoConfig;
    if (!this.options.preview || !codec || !config) return;
    const picture = this.options.preview({
      codec,
      data: keyFrame,
      width: config.codedWidth,
      height: config.codedHeight,
    });
    if (picture) this.previews.set(segment, picture);
  }

  /**
   * Writes the preview of the finished segment `segmentName` beside it, once decoded, and lists
   * it in the span's index after the segment (decision 0084). Written as `{name}.part` first, so
   * a killed recorder leaves no half picture (its `.part` is removed at start).
   */
  private async keepPreview(segmentName: string, picture: Promise<Buffer | undefined>) {
    const jpeg = await picture;
    if (!jpeg) return;
    const name = previewFileName(segmentName);
    const partPath = join(this.dir, `${name}.part`);
    try {
      writeFileSync(partPath, jpeg, { mode: RECORDING_FILE_MODE });
      renameSync(partPath, join(this.dir, name));
      appendFileSync(
        join(this.dir, SEGMENT_INDEX_FILE),
        segmentIndexLine({ change: 'preview', name, bytes: jpeg.length }),
        { mode: RECORDING_FILE_MODE },
      );
    } catch (error) {
      rmSync(partPath, { force: true });
      this.options.log.warn({ err: error }, `recording: cannot keep the preview ${name}`);
    }
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
    const preview = this.previews.get(segment);
    this.previews.delete(segment);
    const flight = this.flight.get(segment);
    this.flight.delete(segment);
    const done = segment.finish().then(async (whole) => {
      if (!whole) {
        rmSync(segment.partPath, { force: true });
        flight?.remove();
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
        const finishedBytes = segment.finishedBytes;
        if (finishedBytes) {
          // WebM: the finished file is muxed apart (segment.ts); the `.part` is kept a while as
          // `.grown` for whoever is reading it as it grew (decision 0085), then goes.
          const grownPath = join(this.dir, grownFileName(segment.startMs));
          renameSync(segment.partPath, grownPath);
          writeFileSync(path, finishedBytes, { mode: RECORDING_FILE_MODE });
          const timer = setTimeout(() => this.dropGrown(grownPath), GROWN_KEEP_MS);
          this.grown.set(grownPath, timer.unref());
        } else {
          renameSync(segment.partPath, path);
        }
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
        return;
      }
      if (preview) await this.keepPreview(name, preview);
    });
    this.finishing.push(done);
    void done.finally(() => {
      this.finishing = this.finishing.filter((other) => other !== done);
    });
  }
}
