/** The soak's result: what the viewers, the churn and the instruments saw, in one report. */
import { readFileSync } from 'node:fs';
import { quantile } from '../stats';
import type { StageStats } from '../stage-control';
import type { WhipPublisherChurn } from './churn';
import {
  NO_COUNTS,
  trend,
  type InPageCounts,
  type MemoryTrend,
  type Sampler,
  type StageSample,
} from './instruments';
import type { ViewerTally } from './viewers';

export interface SoakResult {
  /** The viewers' browser and its version. */
  browser: string;
  durationMs: number;
  joins: number;
  leaves: number;
  failedJoins: string[];
  /** Joins clicked after the pointer moved on the page (the app had joined on standby). */
  joinsAfterArrival: number;
  /** Joins that played only once the camera process, killed on purpose, was back on air. */
  joinsDuringCameraRestart: string[];
  /** The smallest in-page counts seen while a video played: proves the instruments count. */
  whilePlaying: InPageCounts;
  /** The largest in-page counts seen once a leave through the app had settled (all should be 0). */
  worstAfterLeave: InPageCounts;
  leavesWithLeftovers: number;
  pageErrors: string[];
  consoleErrors: string[];
  serverErrorLines: string[];
  stageSamples: StageSample[];
  maxConcurrentPeerConnections: number;
  /** The stage once every viewer has gone. */
  finalStage: {
    sockets: number;
    peerConnections: number;
    participants: number;
    audioListeners: number;
    cameraViewers: number;
    /** The thumbnail process's sessions (counted apart from the viewers' peer connections). */
    thumbnailSessions: number;
  };
  rssMiB: MemoryTrend;
  joinMs: { p50: number; p95: number; max: number };
  /** Times the stage (the forwarding process) was seen with a new pid: it must stay 0. */
  stageRestarts: number;
  cameraKills: number;
  whipPublisher: WhipPublisherChurn;
  /** The 'Watch all' tab at the end: tiles whose video still advanced. */
  multiViewTilesPlayingAtEnd: number | undefined;
  processRssMiB: { stage: MemoryTrend; cameras: MemoryTrend; api: MemoryTrend };
  /** Each process's RSS (MiB) by minute of the run: the highest sample of each minute. */
  processRssByMinute: { stage: number[]; cameras: number[]; api: number[] };
  loadAverage: { start: string; end: string };
}

/**
 * Error lines in the product's log: pino level ≥ 50 (error, fatal), anything unhandled, and the
 * start script's note that the stage died (a crash would otherwise pass as a reconnect).
 */
export function serverErrorLines(logFile: string): string[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(
      (line) =>
        /"level":(5\d|60)/.test(line) ||
        /unhandled|uncaught|TypeError|RangeError|the local stage stopped/i.test(line),
    );
}

export interface SoakParts {
  browser: string;
  durationMs: number;
  viewers: ViewerTally;
  sampler: Sampler;
  /** The stage's stats once every viewer has gone. */
  finalStats: StageStats;
  cameraKills: number;
  whipPublisher: WhipPublisherChurn;
  multiViewTilesPlayingAtEnd: number | undefined;
  pageErrors: string[];
  consoleErrors: string[];
  logFile: string;
  loadAverage: { start: string; end: string };
}

const byMinute = (values: number[]) => [...values].map((value) => value ?? 0);

/** What the stage still holds: all 0 once every viewer has left (the soak's final check). */
export function leftOnStage(stats: StageStats): SoakResult['finalStage'] {
  const perStage = Object.values(stats.stages);
  return {
    sockets: stats.sockets,
    peerConnections: stats.peerConnections,
    participants: perStage.reduce((sum, stage) => sum + stage.participants, 0),
    audioListeners: perStage.reduce((sum, stage) => sum + stage.audioListeners, 0),
    cameraViewers: perStage.reduce((sum, stage) => sum + stage.camera.viewers, 0),
    thumbnailSessions: stats.thumbnailSessions,
  };
}

export function soakReport(parts: SoakParts): SoakResult {
  const { viewers, sampler, finalStats } = parts;
  const stageSamples = sampler.stageSamples;
  const rss = stageSamples.map((sample) => sample.rssMiB);
  const percentile = (q: number) =>
    viewers.joinMs.length === 0 ? 0 : Math.round(quantile(viewers.joinMs, q));
  return {
    browser: parts.browser,
    durationMs: parts.durationMs,
    joins: viewers.joins,
    leaves: viewers.leaves,
    failedJoins: viewers.failedJoins,
    joinsAfterArrival: viewers.joinsAfterArrival,
    joinsDuringCameraRestart: viewers.joinsDuringCameraRestart,
    whilePlaying: viewers.whilePlaying ?? NO_COUNTS,
    worstAfterLeave: viewers.worstAfterLeave,
    leavesWithLeftovers: viewers.leavesWithLeftovers,
    pageErrors: parts.pageErrors,
    consoleErrors: parts.consoleErrors,
    serverErrorLines: serverErrorLines(parts.logFile),
    stageSamples,
    maxConcurrentPeerConnections: Math.max(...stageSamples.map((s) => s.peerConnections)),
    finalStage: leftOnStage(finalStats),
    rssMiB: { start: rss[0] ?? 0, peak: Math.max(...rss), end: rss.at(-1) ?? 0 },
    joinMs: { p50: percentile(0.5), p95: percentile(0.95), max: Math.max(0, ...viewers.joinMs) },
    stageRestarts: sampler.stageRestarts(),
    cameraKills: parts.cameraKills,
    whipPublisher: parts.whipPublisher,
    multiViewTilesPlayingAtEnd: parts.multiViewTilesPlayingAtEnd,
    processRssMiB: {
      stage: trend(sampler.processRss.stage),
      cameras: trend(sampler.processRss.cameras),
      api: trend(sampler.processRss.api),
    },
    processRssByMinute: {
      stage: byMinute(sampler.byMinute.stage),
      cameras: byMinute(sampler.byMinute.cameras),
      api: byMinute(sampler.byMinute.api),
    },
    loadAverage: parts.loadAverage,
  };
}
