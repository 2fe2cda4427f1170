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
 * however many ask. Between requests nothing is received, drawn or decoded for the aircraft.
 *
 * However many ask, a key frame is forced (a session opened, or a PLI) at most about once per
 * KEY_FRAME_INTERVAL_MS, the page's refresh: a request while the aircraft's picture is younger
 * than that gets it at once, with no session and no PLI. Thirty viewers' /home pages out of step
 * (or thirty requests of one) otherwise forced a key frame every FRESH_MS and each waited for it.
 *
 * A key frame later than that (a camera waking on a busy machine takes seconds) gets the
 * aircraft's last picture, unless it is older than STALE_MS or the stage said nothing is on air:
 * then none, and the card shows its placeholder rather than a picture that is no longer of now.
 * The session stays open for the late key frame (up to LATE_KEY_FRAME_MS) and decodes it when it
 * comes, so the next request has it; a session that ended at DEMAND_MS as before would close
 * before each wake was over, and the last picture would only age.
 *
 * Each request first asks the stage who is on air on the aircraft (`GET /_control/on-air`, on
 * loopback, not held): a picture taken while another kind of publisher was on air (the synthetic
 * camera before an encoder took over, or the reverse) is of a video no longer there, and is
 * neither given nor kept; the request takes one of the publisher on air now.
 */
import { randomUUID } from 'node:crypto';
import { loopbackJson } from '@tailcam/protocol/loopback-json';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { THUMBNAILS_USER_ID } from '@tailcam/protocol/thumbnails';
import { ON_AIR_PATH, onAirAnswer, type OnAirAnswer } from '../control';
import type { StageLogger } from '../stage-log';
import { AircraftFeed, type AircraftFeedOptions, type ReceivedKeyFrame } from './aircraft-feed';
import { decodeKeyFrame, ffmpegCommand } from '../codecs/decode-key-frame';

/** A card's picture: the video's width, brought within 320 to 640 px. */
const CARD_WIDTH = { min: 320, max: 640 };
const DEMAND_MS = 4_000;
const FRESH_MS = 3_000;
/** The page asks every 10 s: one forced key frame per aircraft in that time serves every page. */
export const KEY_FRAME_INTERVAL_MS = 10_000;
const KEY_FRAME_WAIT_MS = 4_000;
const LATE_KEY_FRAME_MS = 20_000;
/** Three of the page's refreshes (every 10 s) missed. */
export const STALE_MS = 30_000;
/** A SUBSCRIBE token is checked once, at the POST. */
const TOKEN_TTL_SECONDS = 300;
/** The stage's answer of who is on air (loopback): past this, the request goes on without it. */
const ON_AIR_ANSWER_MS = 1_000;

/** The kind of publisher on air on an aircraft, as the stage says it. */
type OnAir = OnAirAnswer['publishers'][string];

export interface ThumbnailServiceOptions {
  /** http://host:port of the stage process. */
  stageUrl: string;
  secret: Uint8Array;
  stageIds: readonly string[];
  log: StageLogger;
  ffmpeg?: string;
  /** How an aircraft is watched (tests slow its wake down). */
  feed?: (options: AircraftFeedOptions) => AircraftFeed;
  /** A picture older than this is not given (STALE_MS). */
  staleMs?: number;
  /** A key frame is forced at most once in this (KEY_FRAME_INTERVAL_MS). */
  keyFrameIntervalMs?: number;
  /** The clock pictures are aged by, ms (Date.now by default; tests move it, not wait). */
  now?: () => number;
  /**
   * Real time a request waits for a key frame (KEY_FRAME_WAIT_MS) and a session stays open after
   * its last request (DEMAND_MS): timers, not the clock above; tests of a slow camera shorten them.
   */
  keyFrameWaitMs?: number;
  demandMs?: number;
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
  /** `onAir`: who was on air when it was asked for (undefined: the stage did not say). */
  picture: { jpeg: Buffer; from: ReceivedKeyFrame; onAir: OnAir | undefined } | undefined;
  pending: Promise<Buffer | undefined> | undefined;
  /** Waiting for a key frame that came too late for its request; the session stays open. */
  late: Promise<void> | undefined;
  lastFailure: string | undefined;
}

export function startThumbnailService(options: ThumbnailServiceOptions): ThumbnailService {
  const { log } = options;
  const ffmpeg = options.ffmpeg ?? ffmpegCommand();
  const stageBaseUrl = new URL('/stage', options.stageUrl).toString();
  const counts = { decodes: 0, decodeFailures: 0 };
  const aircraft = new Map<string, Aircraft>();
  const newFeed = options.feed ?? ((feedOptions) => new AircraftFeed(feedOptions));
  const staleMs = options.staleMs ?? STALE_MS;
  const keyFrameIntervalMs = options.keyFrameIntervalMs ?? KEY_FRAME_INTERVAL_MS;
  const now = options.now ?? Date.now;
  const keyFrameWaitMs = options.keyFrameWaitMs ?? KEY_FRAME_WAIT_MS;
  const demandMs = options.demandMs ?? DEMAND_MS;
  for (const stageId of options.stageIds) {
    const feed = newFeed({
      stageUrl: options.stageUrl,
      stageId,
      log,
      now,
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
      late: undefined,
      lastFailure: undefined,
    });
  }

  /** A picture young enough to answer without forcing another key frame, if the aircraft has one. */
  function recentPicture(entry: Aircraft): Buffer | undefined {
    const picture = entry.picture;
    if (entry.feed.offAir || !picture) return undefined;
    const age = now() - picture.from.receivedAtMs;
    return age < Math.min(keyFrameIntervalMs, staleMs) ? picture.jpeg : undefined;
  }

  /** The last picture, unless it is stale or nothing is on air any more. */
  function lastPicture(entry: Aircraft): Buffer | undefined {
    if (entry.feed.offAir) entry.picture = undefined;
    const picture = entry.picture;
    if (!picture || now() - picture.from.receivedAtMs > staleMs) return undefined;
    return picture.jpeg;
  }

  /** Who is on air on the aircraft now, by the stage; undefined when it does not answer in time. */
  async function onAirNow(stageId: string): Promise<OnAir | undefined> {
    try {
      const answer = onAirAnswer.parse(
        await loopbackJson(new URL(ON_AIR_PATH, options.stageUrl).href, {
          timeoutMs: ON_AIR_ANSWER_MS,
        }),
      );
      return answer.publishers[stageId];
    } catch {
      return undefined;
    }
  }

  /**
   * Drops the aircraft's picture when another kind of publisher is on air than when it was taken;
   * true when it did (the key frame the session holds may be the old publisher's too).
   */
  function forgetOtherPublisher(entry: Aircraft, onAir: OnAir | undefined): boolean {
    const taken = entry.picture?.onAir;
    if (onAir === undefined || taken === undefined || taken === onAir) return false;
    entry.picture = undefined;
    return true;
  }

  async function decoded(
    entry: Aircraft,
    keyFrame: ReceivedKeyFrame,
    onAir: OnAir | undefined,
  ): Promise<Buffer | undefined> {
    if (entry.picture?.from === keyFrame) return entry.picture.jpeg;
    try {
      const jpeg = await decodeKeyFrame(keyFrame, { ffmpeg, width: CARD_WIDTH });
      counts.decodes += 1;
      // Asked while nothing was on air (a camera waking): the picture is of whoever came.
      entry.picture = { jpeg, from: keyFrame, onAir: onAir === 'none' ? undefined : onAir };
      entry.lastFailure = undefined;
      return jpeg;
    } catch (error) {
      counts.decodeFailures += 1;
      const message = error instanceof Error ? error.message : String(error);
      // Once per kind of failure, not every request: a missing ffmpeg would fill the log.
      if (message !== entry.lastFailure)
        log.warn(`thumbnails: no picture of a key frame: ${message}`);
      entry.lastFailure = message;
      return lastPicture(entry);
    }
  }

  /** `publisherChanged`: only a key frame that comes after this request is of the one on air. */
  async function picture(
    entry: Aircraft,
    onAir: OnAir | undefined,
    publisherChanged: boolean,
    stopLater: () => void,
  ): Promise<Buffer | undefined> {
    const { feed } = entry;
    const newest = publisherChanged ? undefined : feed.newestKeyFrame;
    if (newest && now() - newest.receivedAtMs < FRESH_MS) return decoded(entry, newest, onAir);
    const askedAt = now();
    feed.requestKeyFrame();
    const keyFrame =
      (await feed.keyFrameAfter(askedAt, keyFrameWaitMs)) ??
      (publisherChanged ? undefined : feed.newestKeyFrame);
    if (keyFrame) return decoded(entry, keyFrame, onAir);
    entry.late ??= lateKeyFrame(entry, askedAt, onAir).finally(() => {
      entry.late = undefined;
      stopLater();
    });
    return lastPicture(entry);
  }

  /** Decodes the first key frame after `askedAt` when it comes, asking again as a player does. */
  async function lateKeyFrame(
    entry: Aircraft,
    askedAt: number,
    onAir: OnAir | undefined,
  ): Promise<void> {
    const deadline = askedAt + LATE_KEY_FRAME_MS;
    while (entry.feed.watching && now() < deadline) {
      entry.feed.requestKeyFrame();
      const wait = Math.min(keyFrameWaitMs, deadline - now());
      const late = await entry.feed.keyFrameAfter(askedAt, wait);
      if (late) {
        await decoded(entry, late, onAir);
        return;
      }
    }
  }

  /** A recent picture of the publisher on air now, or one taken now (asks together share it). */
  async function answer(
    stageId: string,
    entry: Aircraft,
    onAir: OnAir | undefined,
  ): Promise<Buffer | undefined> {
    const publisherChanged = forgetOtherPublisher(entry, onAir);
    const recent = recentPicture(entry);
    if (recent) return recent;
    // The session ends DEMAND_MS after the last request, its picture or its late key frame.
    const stopLater = () => {
      clearTimeout(entry.stopTimer);
      entry.stopTimer = setTimeout(() => {
        // A request or a late key frame still pending calls stopLater when it ends.
        if (entry.pending || entry.late) return;
        entry.feed.stop();
        log.debug(`thumbnails: stopped watching ${stageId}`);
      }, demandMs);
    };
    stopLater();
    if (!entry.feed.watching) {
      log.debug(`thumbnails: watching ${stageId}`);
      entry.feed.start();
    }
    try {
      return await picture(entry, onAir, publisherChanged, stopLater);
    } finally {
      stopLater();
    }
  }

  return {
    thumbnail(stageId) {
      const entry = aircraft.get(stageId);
      if (!entry) return Promise.reject(new UnknownAircraftError(`No aircraft ${stageId}`));
      entry.pending ??= onAirNow(stageId)
        .then((onAir) => answer(stageId, entry, onAir))
        .finally(() => {
          entry.pending = undefined;
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
