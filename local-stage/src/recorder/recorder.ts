/**
 * The recorder (docs/decisions/0072-recorder.md): watches the stage's health for who is on air on
 * each aircraft and keeps one WHEP recording per aircraft whose publisher is to be recorded (a
 * real encoder always; the synthetic camera unless `mode` is `encoders`, and it sends frames only
 * while a person watches). A session that ends or fails to start is tried again on the next look.
 * Retention runs beside it on a timer.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isStageName, parseSpanName } from '@tailcam/protocol/recordings';
import type { StageLogger } from '../stage-log';
import { Retention, type RetentionLimits } from './retention';
import { WhepRecording } from './whep-recording';

export type RecordingMode = 'all' | 'encoders' | 'off';

export interface RecorderOptions extends RetentionLimits {
  stageUrl: string;
  secret: Uint8Array;
  root: string;
  mode: Exclude<RecordingMode, 'off'>;
  segmentMs: number;
  log: StageLogger;
  /** How often the stage's health is read (who is on air). */
  pollMs?: number;
  sweepMs?: number;
  onSegment?: (stageId: string, path: string, durationMs: number) => void;
}

type OnAir = 'camera' | 'encoder' | 'none';

interface Active {
  publisher: 'camera' | 'encoder';
  recording: WhepRecording;
  ended: boolean;
}

/** Removes the `.part` files a killed recorder left (each at most one segment's worth). */
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
      for (const name of list(join(root, stage, span))) {
        if (!name.endsWith('.part')) continue;
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
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastPollProblem: string | undefined;

  constructor(private readonly options: RecorderOptions) {
    this.retention = new Retention({ ...options, log: options.log });
  }

  async start(): Promise<void> {
    mkdirSync(this.options.root, { recursive: true });
    const leftovers = removeLeftoverParts(this.options.root);
    if (leftovers > 0) {
      this.options.log.warn(
        `recording: removed ${leftovers} unfinished segment(s) a stopped recorder left`,
      );
    }
    await this.retention.sweep();
    const sweep = () => {
      this.sweepTimer = setTimeout(() => {
        void this.retention.sweep().finally(() => {
          if (!this.closed) sweep();
        });
      }, this.options.sweepMs ?? 10_000);
    };
    sweep();
    const poll = () => {
      void this.poll().finally(() => {
        if (!this.closed) this.pollTimer = setTimeout(poll, this.options.pollMs ?? 1_000);
      });
    };
    poll();
  }

  /** Aircraft being recorded now, with the publisher recorded. */
  recording(): Record<string, 'camera' | 'encoder'> {
    return Object.fromEntries(
      [...this.active].map(([stageId, active]) => [stageId, active.publisher]),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.sweepTimer);
    await Promise.all([...this.active.values()].map((active) => active.recording.close()));
    this.active.clear();
  }

  private async poll(): Promise<void> {
    let publishers: Record<string, OnAir>;
    try {
      const response = await fetch(new URL('/stage/health', this.options.stageUrl), {
        signal: AbortSignal.timeout(2_000),
      });
      const body = (await response.json()) as { publishers?: Record<string, OnAir> };
      publishers = body.publishers ?? {};
      this.lastPollProblem = undefined;
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      if (problem !== this.lastPollProblem) {
        this.options.log.warn(`recording: the stage does not answer (${problem}); trying again`);
      }
      this.lastPollProblem = problem;
      return;
    }
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
    }
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
        log: this.options.log,
        onSegment: (path, durationMs) => this.options.onSegment?.(stageId, path, durationMs),
        onEnded: () => {
          entry.ended = true;
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
      this.options.log.info(`recording ${stageId} (${publisher})`);
    } catch (error) {
      this.options.log.warn(
        `recording ${stageId}: the stage refused (${error instanceof Error ? error.message : String(error)}); trying again`,
      );
    } finally {
      this.starting.delete(stageId);
    }
  }
}
