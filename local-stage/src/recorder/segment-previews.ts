/**
 * Each segment's preview picture (docs/decisions/0084-recording-what-a-person-watches.md): the key
 * frame a segment starts with, decoded by ffmpeg (codecs/decode-key-frame.ts, a process per
 * picture, at niceness PREVIEW_NICE: a picture may wait, what the recorder receives may not,
 * decision 0111) into a JPEG 160 px wide, its aspect kept. No key frame is asked for it. The cost
 * is bounded: at most one decode in flight per aircraft, and the newest key frame that comes
 * meanwhile waits for it (one waiting: an older one is dropped, its segment gets no preview); a
 * failed decode costs only its preview.
 * Without ffmpeg, segments are written without previews and the log says so once.
 */
import { DecodeError, decodeKeyFrame, type EncodedKeyFrame } from '../codecs/decode-key-frame';
import type { StageLogger } from '../stage-log';

/** A preview's width, px: a timeline's hover picture, a few kB. */
export const PREVIEW_WIDTH = 160;
/**
 * A decode that takes longer is killed (a stuck ffmpeg). At niceness 10 on a saturated machine a
 * decode of a few tens of ms of CPU gets a few per cent of a core (decision 0111): seconds.
 */
const DECODE_TIMEOUT_MS = 10_000;
/** The decode's niceness: below the recorder, the stage and the cameras (decision 0111). */
export const PREVIEW_NICE = 10;

/** One aircraft's previews: a JPEG to come for `keyFrame`, or undefined when it gets none. */
export type PreviewMaker = (keyFrame: EncodedKeyFrame) => Promise<Buffer | undefined> | undefined;

export interface SegmentPreviewsOptions {
  /** The ffmpeg to run (FFMPEG_PATH). */
  ffmpeg: string;
  log: StageLogger;
  /** The decoder (a test gives its own). */
  decode?: typeof decodeKeyFrame;
}

export class SegmentPreviews {
  /** ffmpeg could not be run: no decode is tried any more. */
  private unavailable = false;
  /** The last failure said (each kind once, until another comes). */
  private lastFailure: string | undefined;
  /** Decodes run, and those that failed (for benchmarks and tests). */
  readonly counts = { decodes: 0, failures: 0, skipped: 0 };

  constructor(private readonly options: SegmentPreviewsOptions) {}

  /**
   * A maker for one aircraft: one decode at a time, and the newest key frame that comes meanwhile
   * decoded after it (a picture at niceness 10 on a busy machine may outlast its segment, decision
   * 0111); an older one waiting is dropped, and its promise gives undefined.
   */
  forAircraft(): PreviewMaker {
    let decoding = false;
    /** The newest key frame that came during the decode, and who waits for its picture. */
    let waiting:
      { keyFrame: EncodedKeyFrame; give: (jpeg: Promise<Buffer | undefined>) => void } | undefined;
    const run = (keyFrame: EncodedKeyFrame): Promise<Buffer | undefined> => {
      decoding = true;
      return this.decode(keyFrame).finally(() => {
        decoding = false;
        const next = waiting;
        waiting = undefined;
        next?.give(this.unavailable ? Promise.resolve(undefined) : run(next.keyFrame));
      });
    };
    return (keyFrame) => {
      if (this.unavailable) return undefined;
      if (!decoding) return run(keyFrame);
      if (waiting) {
        this.counts.skipped += 1;
        waiting.give(Promise.resolve(undefined));
      }
      return new Promise((resolve) => (waiting = { keyFrame, give: resolve }));
    };
  }

  private async decode(keyFrame: EncodedKeyFrame): Promise<Buffer | undefined> {
    const decode = this.options.decode ?? decodeKeyFrame;
    try {
      const jpeg = await decode(keyFrame, {
        ffmpeg: this.options.ffmpeg,
        width: { min: PREVIEW_WIDTH, max: PREVIEW_WIDTH },
        timeoutMs: DECODE_TIMEOUT_MS,
        nice: PREVIEW_NICE,
      });
      this.counts.decodes += 1;
      return jpeg;
    } catch (error) {
      this.counts.failures += 1;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof DecodeError && error.unavailable) {
        this.unavailable = true;
        this.options.log.warn(
          `recording: ${message}; segments are written without previews (Debian: apt-get install ffmpeg; or set FFMPEG_PATH)`,
        );
      } else if (message !== this.lastFailure) {
        this.options.log.warn(`recording: a segment has no preview: ${message}`);
      }
      this.lastFailure = message;
      return undefined;
    }
  }
}
