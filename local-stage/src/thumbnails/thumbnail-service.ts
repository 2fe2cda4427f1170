/**
 * The thumbnail process's work, usable in-process by tests: per aircraft, a picture made from its
 * newest key frame, on demand (docs/decisions/0070-thumbnails.md).
 *
 * Demand is a request: the API asks for an aircraft's picture while someone has /home open (every
 * 10 s). A request opens a session to the aircraft if none is open (the stage sends a joining
 * player a key frame at once) and keeps it DEMAND_MS: a picture takes one session of a few
 * seconds, not a stream watched all along (the bench measured half the CPU so). Within a session
 * a request gets a key frame at most FRESH_MS old, asking the publisher for one (a PLI) when the
 * newest is older, and waiting for it up to KEY_FRAME_WAIT_MS. A key frame is decoded once,
 * however many ask. Between requests nothing is received, drawn or decoded for the aircraft; the
 * last picture is kept for the next request in case its key frame is late, unless the stage said
 * nothing is on air.
 */
import { randomUUID } from 'node:crypto';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { THUMBNAILS_USER_ID } from '@tailcam/protocol/thumbnails';
import type { StageLogger } from '../stage-log';
import { AircraftFeed, type ReceivedKeyFrame } from './aircraft-feed';
import { decodeKeyFrame, ffmpegCommand } from './decode-key-frame';

const DEMAND_MS = 4_000;
const FRESH_MS = 3_000;
const KEY_FRAME_WAIT_MS = 4_000;
/** A SUBSCRIBE token is checked once, at the POST. */
const TOKEN_TTL_SECONDS = 300;

export interface ThumbnailServiceOptions {
  /** http://host:port of the stage process. */
  stageUrl: string;
  secret: Uint8Array;
  stageIds: readonly string[];
  log: StageLogger;
  ffmpeg?: string;
}

export interface ThumbnailStats {
  watching: string[];
  keyFrames: number;
  decodes: number;
  decodeFailures: number;
  process: { cpuMicros: number; rssBytes: number; uptimeMs: number };
}

export interface ThumbnailService {
  /** The aircraft's picture (JPEG), undefined when it has none now; throws for an unknown id. */
  thumbnail(stageId: string): Promise<Buffer | undefined>;
  stats(): ThumbnailStats;
  close(): void;
}

export class UnknownAircraftError extends Error {
  override name = 'UnknownAircraftError';
}

interface Aircraft {
  feed: AircraftFeed;
  /** Ends the session DEMAND_MS after the last request (no timer at all while idle). */
  stopTimer: NodeJS.Timeout | undefined;
  picture: { jpeg: Buffer; from: ReceivedKeyFrame } | undefined;
  pending: Promise<Buffer | undefined> | undefined;
  lastFailure: string | undefined;
}

export function startThumbnailService(options: ThumbnailServiceOptions): ThumbnailService {
  const { log } = options;
  const ffmpeg = options.ffmpeg ?? ffmpegCommand();
  const stageBaseUrl = new URL('/stage', options.stageUrl).toString();
  const counts = { decodes: 0, decodeFailures: 0 };
  const aircraft = new Map<string, Aircraft>();
  for (const stageId of options.stageIds) {
    const feed = new AircraftFeed({
      stageUrl: options.stageUrl,
      stageId,
      log,
      issueToken: () =>
        issueParticipantToken({
          secret: options.secret,
          participantId: randomUUID(),
          stageId,
          userId: THUMBNAILS_USER_ID,
          attributes: {},
          capabilities: { publish: false, subscribe: true },
          stageBaseUrl,
          ttlSeconds: TOKEN_TTL_SECONDS,
        }),
    });
    aircraft.set(stageId, {
      feed,
      stopTimer: undefined,
      picture: undefined,
      pending: undefined,
      lastFailure: undefined,
    });
  }

  async function picture(entry: Aircraft): Promise<Buffer | undefined> {
    const { feed } = entry;
    const newest = feed.newestKeyFrame;
    let keyFrame = newest && Date.now() - newest.receivedAtMs < FRESH_MS ? newest : undefined;
    if (!keyFrame) {
      const askedAt = Date.now();
      feed.requestKeyFrame();
      keyFrame = (await feed.keyFrameAfter(askedAt, KEY_FRAME_WAIT_MS)) ?? feed.newestKeyFrame;
    }
    if (!keyFrame) {
      // Late (a camera waking on a loaded machine): the last picture of this aircraft will do,
      // unless nobody is on air there any more.
      if (feed.offAir) entry.picture = undefined;
      return entry.picture?.jpeg;
    }
    if (entry.picture?.from === keyFrame) return entry.picture.jpeg;
    try {
      const jpeg = await decodeKeyFrame(keyFrame, ffmpeg);
      counts.decodes += 1;
      entry.picture = { jpeg, from: keyFrame };
      entry.lastFailure = undefined;
      return jpeg;
    } catch (error) {
      counts.decodeFailures += 1;
      const message = error instanceof Error ? error.message : String(error);
      // Once per kind of failure, not every request: a missing ffmpeg would fill the log.
      if (message !== entry.lastFailure)
        log.warn(`thumbnails: no picture of a key frame: ${message}`);
      entry.lastFailure = message;
      return entry.picture?.jpeg;
    }
  }

  return {
    thumbnail(stageId) {
      const entry = aircraft.get(stageId);
      if (!entry) return Promise.reject(new UnknownAircraftError(`No aircraft ${stageId}`));
      // The session ends DEMAND_MS after the last request, or after its picture if that is later.
      const stopLater = () => {
        clearTimeout(entry.stopTimer);
        entry.stopTimer = setTimeout(() => {
          entry.feed.stop();
          log.debug(`thumbnails: stopped watching ${stageId}`);
        }, DEMAND_MS);
      };
      stopLater();
      if (!entry.feed.watching) {
        log.debug(`thumbnails: watching ${stageId}`);
        entry.feed.start();
      }
      entry.pending ??= picture(entry).finally(() => {
        entry.pending = undefined;
        stopLater();
      });
      return entry.pending;
    },
    stats() {
      const cpu = process.cpuUsage();
      const entries = [...aircraft.entries()];
      return {
        watching: entries.filter(([, entry]) => entry.feed.watching).map(([stageId]) => stageId),
        keyFrames: entries.reduce((sum, [, entry]) => sum + entry.feed.keyFrames, 0),
        ...counts,
        process: {
          cpuMicros: cpu.user + cpu.system,
          rssBytes: process.memoryUsage.rss(),
          uptimeMs: Math.round(process.uptime() * 1000),
        },
      };
    },
    close() {
      for (const entry of aircraft.values()) {
        clearTimeout(entry.stopTimer);
        entry.feed.stop();
      }
    },
  };
}
