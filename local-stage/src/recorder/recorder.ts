/**
 * The recorder (docs/decisions/0072-recorder.md): learns who is on air on each aircraft from the
 * stage's long poll (`GET /_control/on-air`, held until it changes: an idle recorder and stage
 * wake about once a minute, not every second; decision 0078) and keeps one WHEP recording per
 * aircraft whose publisher is to be recorded (a real encoder always; the synthetic camera unless
 * `mode` is `encoders`). A real encoder's frames are written always, a synthetic camera's exactly
 * while the stage says a person watches it (the answer's `watched`): a camera woken for the
 * thumbnails, or watched by nobody, records nothing (decision 0084). A session that ends or
 * fails to start lets go of the held question, so it is tried again at the next look, at most
 * every `pollMs`. Retention runs beside it on a timer (every 10 s while it records, else every
 * minute).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  isStageName,
  parseFlightFileName,
  parsePreviewFileName,
  parseSegmentFileName,
  parseSpanName,
  RECORDING_DIR_MODE,
} from '@tailcam/protocol/recordings';
import { loopbackJson } from '@tailcam/protocol/loopback-json';
import { ON_AIR_PATH, onAirAnswer, type OnAirAnswer } from '../control';
import type { StageLogger } from '../stage-log';
import { Retention, type RetentionLimits } from './retention';
import { SegmentPreviews, type PreviewMaker } from './segment-previews';
import { WhepRecording } from './whep-recording';

export type RecordingMode = 'all' | 'encoders' | 'off';

export interface RecorderOptions extends RetentionLimits {
  stageUrl: string;
  secret: Uint8Array;
  root: string;
  mode: Exclude<RecordingMode, 'off'>;
  segmentMs: number;
  log: StageLogger;
  /** The least time between two questions to the stage (who is on air), when one is not held. */
  pollMs?: number;
  /** How long the stage may hold a question while nothing changes, seconds. */
  holdSeconds?: number;
  sweepMs?: number;
  /**
   * The ffmpeg that decodes each segment's preview (FFMPEG_PATH; decision 0084); no previews
   * without one.
   */
  previewFfmpeg?: string;
  onSegment?: (stageId: string, path: string, durationMs: number) => void;
}

/**
 * Retention's sweep while nothing is being recorded: nothing grows then, so only the age limit
 * and the free space can change, and a minute is soon enough (it lists every segment).
 */
const IDLE_SWEEP_MS = 60_000;
/** How long the stage may hold the recorder's question while nobody comes or goes on air. */
const HOLD_SECONDS = 50;
/** How long after the hold the answer may take. */
const ANSWER_MS = 5_000;

interface Active {
  publisher: 'camera' | 'encoder';
  recording: WhepRecording;
  ended: boolean;
}

/**
 * Removes the `.part` files a killed recorder left (each at most one segment's worth, or a preview
 * being written), and previews and flight data whose segment is gone (decisions 0084, 0096).
 */
export function removeLeftoverParts(root: string): number {
  let removed = 0;
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  for (const stage of list(root).filter(isStageName)) {
    for (const span of list(join(root, stage))) {
      if (parseSpanName(span) === undefined) continue;
      const names = list(join(root, stage, span));
      const present = new Set(names);
      const segmentOffsets = new Set(names.map((name) => parseSegmentFileName(name)?.offsetMs));
      for (const name of names) {
        const flightOffset = parseFlightFileName(name);
        const orphan =
          (parsePreviewFileName(name) !== undefined &&
            !present.has(name.replace(/\.jpg$/, '.webm')) &&
            !present.has(name.replace(/\.jpg$/, '.mp4'))) ||
          (flightOffset !== undefined && !segmentOffsets.has(flightOffset));
        // A `.grown` copy (decision 0085) is kept seconds after its segment finished: left over.
        if (!name.endsWith('.part') && !name.endsWith('.grown') && !orphan) continue;
        rmSync(join(root, stage, span, name), { force: true });
        removed += 1;
      }
    }
  }
  return removed;
}

export class Recorder {
  private readonly active = new Map<string, Active>();
  private readonly starting = new Set<string>();
  private readonly retention: Retention;
  private readonly previews: SegmentPreviews | undefined;
  /** Each aircraft's previews: one decode at a time per aircraft, whichever span it is for. */
  private readonly previewMakers = new Map<string, PreviewMaker>();
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Whether the sweep waiting now was timed for nothing being recorded. */
  private sweepIdle = false;
  private readonly stopping = new AbortController();
  /** Whether a person watches each aircraft, as last answered. */
  private watched: Record<string, boolean> = {};
  /** The version of who is on air last answered (undefined: ask without a hold). */
  private onAirVersion: number | undefined;
  /** Lets go of the question the stage holds now, if any. */
  private holding: AbortController | undefined;
  /**
   * The last problem said of the on-air poll (key `poll`) and of each aircraft's start: tried
   * again every second, each is said once until it changes or goes away.
   */
  private readonly lastProblem = new Map<string, string>();

  constructor(private readonly options: RecorderOptions) {
    this.retention = new Retention({ ...options, log: options.log });
    this.previews =
      options.previewFfmpeg === undefined
        ? undefined
        : new SegmentPreviews({ ffmpeg: options.previewFfmpeg, log: options.log });
  }

  /** Preview decodes so far (benchmarks, tests); undefined without previews. */
  get previewCounts(): SegmentPreviews['counts'] | undefined {
    return this.previews?.counts;
  }

  private previewMaker(stageId: string): PreviewMaker | undefined {
    if (!this.previews) return undefined;
    let maker = this.previewMakers.get(stageId);
    if (!maker) {
      maker = this.previews.forAircraft();
      this.previewMakers.set(stageId, maker);
    }
    return maker;
  }

  async start(): Promise<void> {
    mkdirSync(this.options.root, { recursive: true, mode: RECORDING_DIR_MODE });
    const leftovers = removeLeftoverParts(this.options.root);
    if (leftovers > 0) {
      this.options.log.warn(
        `recording: removed ${leftovers} unfinished segment(s) or preview(s) a stopped recorder left`,
      );
    }
    await this.retention.sweep();
    this.scheduleSweep();
    const poll = () => {
      const startedAt = performance.now();
      void this.poll().finally(() => {
        // A held answer is followed by the next question at once; a quick one after pollMs.
        const pollMs = this.options.pollMs ?? 1_000;
        const delay = Math.max(0, pollMs - (performance.now() - startedAt));
        if (!this.closed) this.pollTimer = setTimeout(poll, delay);
      });
    };
    poll();
  }

  /**
   * The next sweep: `sweepMs` (10 s) from now while something is recorded, else a minute (a
   * recording that starts brings it forward).
   */
  private scheduleSweep(): void {
    clearTimeout(this.sweepTimer);
    const sweepMs = this.options.sweepMs ?? 10_000;
    this.sweepIdle = this.active.size === 0;
    this.sweepTimer = setTimeout(
      () => {
        this.sweepTimer = undefined;
        void this.retention.sweep().finally(() => {
          if (!this.closed && this.sweepTimer === undefined) this.scheduleSweep();
        });
      },
      this.sweepIdle ? Math.max(sweepMs, IDLE_SWEEP_MS) : sweepMs,
    );
  }

  /** Aircraft being recorded now, with the publisher recorded. */
  recording(): Record<string, 'camera' | 'encoder'> {
    return Object.fromEntries(
      [...this.active].map(([stageId, active]) => [stageId, active.publisher]),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    clearTimeout(this.pollTimer);
    clearTimeout(this.sweepTimer);
    await Promise.all([...this.active.values()].map((active) => active.recording.close()));
    this.active.clear();
  }

  private async poll(): Promise<void> {
    let publishers: OnAirAnswer['publishers'];
    let watched: OnAirAnswer['watched'];
    const holding = new AbortController();
    this.holding = holding;
    try {
      const holdSeconds = this.options.holdSeconds ?? HOLD_SECONDS;
      const known = this.onAirVersion;
      const query =
        known === undefined ? '' : `?since=${String(known)}&wait=${String(holdSeconds)}`;
      const answer = onAirAnswer.parse(
        await loopbackJson(new URL(`${ON_AIR_PATH}${query}`, this.options.stageUrl).href, {
          signal: AbortSignal.any([this.stopping.signal, holding.signal]),
          timeoutMs: (known === undefined ? 0 : holdSeconds * 1000) + ANSWER_MS,
        }),
      );
      publishers = answer.publishers;
      watched = answer.watched;
      this.onAirVersion = answer.version;
      this.lastProblem.delete('poll');
    } catch (error) {
      // Let go on purpose (a recording ended, or the recorder closes): the next look comes.
      if (holding.signal.aborted || this.closed) return;
      this.onAirVersion = undefined;
      this.warnOnce(
        'poll',
        error,
        (problem) => `recording: the stage does not answer (${problem}); trying again`,
      );
      return;
    } finally {
      if (this.holding === holding) this.holding = undefined;
    }
    this.watched = watched;
    for (const [stageId, onAir] of Object.entries(publishers)) {
      if (!isStageName(stageId)) continue;
      const wanted = onAir === 'encoder' || (onAir === 'camera' && this.options.mode === 'all');
      const active = this.active.get(stageId);
      if (active && (active.ended || !wanted || active.publisher !== onAir)) {
        this.active.delete(stageId);
        if (!active.ended) await active.recording.close();
      }
      if (wanted && !this.active.has(stageId) && !this.starting.has(stageId) && !this.closed) {
        void this.startRecording(stageId, onAir);
      }
      const kept = this.active.get(stageId);
      kept?.recording.write(this.writes(stageId, kept.publisher));
    }
  }

  /** A real encoder is written always; a synthetic camera while a person watches it. */
  private writes(stageId: string, publisher: 'camera' | 'encoder'): boolean {
    return publisher === 'encoder' || this.watched[stageId] === true;
  }

  /** A recording ended or could not start: the next look at who is on air comes now. */
  private lookAgain(): void {
    this.onAirVersion = undefined;
    this.holding?.abort();
  }

  private async startRecording(stageId: string, publisher: 'camera' | 'encoder'): Promise<void> {
    this.starting.add(stageId);
    const entry: Active = {
      publisher,
      ended: false,
      recording: new WhepRecording({
        stageUrl: this.options.stageUrl,
        stageId,
        secret: this.options.secret,
        publisher,
        stageDir: join(this.options.root, stageId),
        segmentMs: this.options.segmentMs,
        mayStartSegment: () => this.retention.allowsRecording,
        writing: this.writes(stageId, publisher),
        preview: this.previewMaker(stageId),
        log: this.options.log,
        onSegment: (path, durationMs) => this.options.onSegment?.(stageId, path, durationMs),
        onEnded: () => {
          entry.ended = true;
          this.lookAgain();
        },
      }),
    };
    try {
      await entry.recording.start();
      if (this.closed) {
        await entry.recording.close();
        return;
      }
      this.active.set(stageId, entry);
      // Whether a person watches may have changed while it started.
      entry.recording.write(this.writes(stageId, publisher));
      this.lastProblem.delete(stageId);
      if (this.sweepIdle && this.sweepTimer !== undefined) this.scheduleSweep();
      this.options.log.info(
        publisher === 'camera'
          ? `recording ${stageId} (camera) while a person watches it`
          : `recording ${stageId} (encoder)`,
      );
    } catch (error) {
      this.lookAgain();
      this.warnOnce(
        stageId,
        error,
        (problem) => `recording ${stageId}: the stage refused (${problem}); trying again`,
      );
    } finally {
      this.starting.delete(stageId);
    }
  }

  /** Warns of `error` under `key`, unless it is the problem last said there. */
  private warnOnce(key: string, error: unknown, say: (problem: string) => string): void {
    const problem = error instanceof Error ? error.message : String(error);
    if (this.lastProblem.get(key) !== problem) this.options.log.warn(say(problem));
    this.lastProblem.set(key, problem);
  }
}
