/**
 * The local stage: one stage per stream id, each with one publisher (its synthetic camera), and
 * the viewers' sessions. Admits joins (token checks, injected faults, token reuse), answers the
 * health and stats questions, and carries out the fault injections. The sessions reach the stage
 * only through the `SessionHost` it hands each of them.
 */
import type { WebSocket } from 'ws';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import type { ParticipantDescription, StageErrorCategoryName } from '../signalling';
import { STAGE_ERROR_CODES } from '../signalling';
import { CabinAudio } from './cabin-audio';
import { Camera, type CameraState } from './camera';
import { CameraFeed } from './camera-feed';
import { DEFAULT_SESSIONS_PER_USER } from './config';
import type { StageStats } from './control';
import { JoinRefusedError, verifyJoinToken } from './join-token';
import type { Subscription } from './subscription';
import { ViewerSession, type Admission, type SessionHost } from './viewer-session';

/** A camera's encoder that has not reached its tap by then is reported, not waited for. */
const FEED_CONNECT_TIMEOUT_MS = 10_000;

/** The join error a viewer sees after `[JOIN_ERROR] ` when their account holds too many sessions. */
export const TOO_MANY_SESSIONS =
  'Too many streams are open with this account; close one and try again';

export interface LocalStageOptions {
  stageIds: readonly string[];
  secret: Uint8Array;
  camera: { width: number; height: number; fps: number; idleMs: number };
  /** Most sessions at once; further joins are refused with STAGE_AT_CAPACITY. */
  maxSessions?: number;
  /** Most sessions one user (the token's `user_id`) holds at once; further joins are refused. */
  maxSessionsPerUser?: number;
  log?: (message: string, detail?: unknown) => void;
}

interface StageEntry {
  stageId: string;
  camera: Camera;
  audio: CabinAudio;
  /** The camera and its sound, encoded once for all its viewers. */
  feed: CameraFeed;
  /** Bumped when the camera comes back on air: a new publisher participant id. */
  generation: number;
}

export interface JoinFailure {
  stageId?: string;
  code: number;
  /** What the viewer's join error says; IVS's text for the code when absent. */
  message?: string;
}

/**
 * Whether a viewer's join would be served now (`docs/decisions/0028-stage-readiness.md`), and
 * each camera's state (a camera stopped by a fault does not make the stage unready: a join is
 * served, and the viewer sees the camera off air).
 */
export type StageHealth = { cameras: Record<string, CameraState> } & (
  { ready: true } | { ready: false; reason: string }
);

export class LocalStage {
  private readonly options: LocalStageOptions;
  private readonly stages = new Map<string, StageEntry>();
  private readonly sessions = new Set<ViewerSession>();
  /** Whose each admitted session is (set when admitted, before the session counts as joined). */
  private readonly sessionUsers = new WeakMap<ViewerSession, string>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly joinFailures: JoinFailure[] = [];
  private readonly connectTimes: number[] = [];
  /** What the sessions may ask of the stage. */
  private readonly host: SessionHost;
  /** The start-up self-check's finding: undefined until it ran, null when it found nothing. */
  private startupProblem: string | null | undefined;
  private closing = false;
  readonly log: (message: string, detail?: unknown) => void;

  constructor(options: LocalStageOptions) {
    this.options = options;
    this.log = options.log ?? (() => undefined);
    this.host = {
      admit: (session, token) => this.admit(session, token),
      publisherFeed: (stageId, participantId) => this.publisherFeed(stageId, participantId),
      subscriptionOpened: (subscription) => {
        this.subscriptions.add(subscription);
      },
      subscriptionClosed: (subscription) => this.subscriptionClosed(subscription),
      sessionClosed: (session) => {
        this.sessions.delete(session);
      },
      log: this.log,
    };
    options.stageIds.forEach((stageId, streamIndex) => {
      const camera = new Camera({ streamId: stageId, streamIndex, ...options.camera });
      const audio = new CabinAudio(streamIndex);
      const feed = new CameraFeed({ camera, audio, log: this.log });
      this.stages.set(stageId, { stageId, camera, audio, feed, generation: 1 });
    });
  }

  /** Takes a new events socket; the session admits itself through `admit`. */
  accept(socket: WebSocket): ViewerSession {
    const session = new ViewerSession(socket, this.host);
    this.sessions.add(session);
    return session;
  }

  private async admit(session: ViewerSession, token: string): Promise<Admission> {
    const claims = await verifyJoinToken(token, {
      secret: this.options.secret,
      stageIds: this.options.stageIds,
    });
    const failureIndex = this.joinFailures.findIndex(
      (failure) => failure.stageId === undefined || failure.stageId === claims.topic,
    );
    if (failureIndex >= 0) {
      const [failure] = this.joinFailures.splice(failureIndex, 1);
      if (failure) {
        throw new JoinRefusedError(failure.code, failure.message, 'fault injection');
      }
    }
    // One account cannot take every seat. The same token's other session ends below: not counted.
    const sameUser = [...this.sessions].filter(
      (other) =>
        other !== session &&
        other.state !== 'closed' &&
        this.sessionUsers.get(other) === claims.user_id &&
        other.participantId !== claims.jti,
    );
    const perUser = this.options.maxSessionsPerUser ?? DEFAULT_SESSIONS_PER_USER;
    if (sameUser.length >= perUser) {
      // TOKEN_NOT_ALLOWED, not STAGE_AT_CAPACITY: the stage has room, this account has not.
      throw new JoinRefusedError(
        STAGE_ERROR_CODES.TOKEN_NOT_ALLOWED,
        TOO_MANY_SESSIONS,
        `user ${claims.user_id} holds ${sameUser.length} sessions (at most ${perUser})`,
      );
    }
    const joined = [...this.sessions].filter((other) => other.state === 'joined');
    if (joined.length >= (this.options.maxSessions ?? 64)) {
      throw new JoinRefusedError(STAGE_ERROR_CODES.STAGE_AT_CAPACITY);
    }
    // A token holds one connection at a time (as with IVS): the newer join wins.
    for (const other of joined) {
      if (other !== session && other.participantId === claims.jti) other.end('token-reused');
    }
    const publisher = this.publisherOf(claims.topic);
    this.sessionUsers.set(session, claims.user_id);
    return {
      participantId: claims.jti,
      stageId: claims.topic,
      participants: publisher ? [publisher] : [],
    };
  }

  private publisherOf(stageId: string): ParticipantDescription | undefined {
    const entry = this.stages.get(stageId);
    if (!entry || entry.camera.state === 'stopped') return undefined;
    return {
      id: publisherId(entry),
      userId: stageId,
      attributes: { kind: 'camera', tailNumber: stageId },
      publishing: true,
      media: ['audio', 'video'],
    };
  }

  /**
   * Tries, once at start-up, what every join needs: a participant token signed with the secret
   * passes the joins' own check, each camera draws a frame, and each camera's encoder
   * (libwebrtc) connects to its tap (werift). Connects the feeds, so that a first viewer waits for
   * nothing. Never throws: what it finds is what `health()` reports.
   */
  async selfCheck(): Promise<StageHealth> {
    const problems: string[] = [];
    const tokenProblem = await this.checkTokens();
    if (tokenProblem) problems.push(tokenProblem);
    for (const entry of this.stages.values()) {
      try {
        entry.camera.warmUp();
      } catch (error) {
        problems.push(`camera ${entry.stageId} cannot draw a frame: ${messageOf(error)}`);
      }
    }
    // The feeds' state is read live by health(); a failure here is only logged.
    await Promise.all(
      [...this.stages.values()].map((entry) =>
        withTimeout(entry.feed.ready(), FEED_CONNECT_TIMEOUT_MS).catch((error: unknown) =>
          this.log(`camera feed ${entry.stageId} did not connect`, error),
        ),
      ),
    );
    this.startupProblem = problems[0] ?? null;
    return this.health();
  }

  /** The feed of a publisher on the stage, while it is on air. */
  private publisherFeed(stageId: string, participantId: string): CameraFeed | undefined {
    const entry = this.stages.get(stageId);
    if (!entry || entry.camera.state === 'stopped' || publisherId(entry) !== participantId) {
      return undefined;
    }
    return entry.feed;
  }

  private subscriptionClosed(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    if (subscription.connectedAt !== undefined) {
      this.connectTimes.push(subscription.connectedAt - subscription.requestedAt);
      if (this.connectTimes.length > 20) this.connectTimes.shift();
    }
  }

  /** Cheap (health is polled): the self-check's finding, then what can change while running. */
  health(): StageHealth {
    const cameras = Object.fromEntries(
      [...this.stages.values()].map((entry) => [entry.stageId, entry.camera.state]),
    );
    const reason = this.notReadyReason();
    return reason === undefined ? { ready: true, cameras } : { ready: false, reason, cameras };
  }

  private notReadyReason(): string | undefined {
    if (this.closing) return 'shutting down';
    if (this.startupProblem === undefined) return 'starting';
    if (this.startupProblem !== null) return this.startupProblem;
    const disconnected = [...this.stages.values()].find((entry) => !entry.feed.connected);
    if (disconnected) return `camera feed ${disconnected.stageId} is not connected`;
    return undefined;
  }

  /** Signs a token as the API does and verifies it as a join does: the secret works both ways. */
  private async checkTokens(): Promise<string | undefined> {
    const { secret, stageIds } = this.options;
    const stageId = stageIds[0];
    if (stageId === undefined) return 'no stage to serve';
    try {
      const token = await issueParticipantToken({
        secret,
        participantId: 'self-check',
        stageId,
        userId: 'self-check',
        attributes: {},
        capabilities: { publish: false, subscribe: true },
        stageBaseUrl: 'http://127.0.0.1/stage',
        ttlSeconds: 60,
      });
      await verifyJoinToken(token, { secret, stageIds });
      return undefined;
    } catch (error) {
      const detail =
        error instanceof JoinRefusedError ? error.details || error.message : messageOf(error);
      return `participant tokens cannot be verified: ${detail}`;
    }
  }

  stats(): StageStats {
    const cpu = process.cpuUsage();
    const joined = [...this.sessions].filter((session) => session.state === 'joined');
    const stages: StageStats['stages'] = {};
    for (const entry of this.stages.values()) {
      const viewers = joined.filter((session) => session.stageId === entry.stageId);
      stages[entry.stageId] = {
        audioListeners: entry.audio.listenerCount,
        camera: {
          state: entry.camera.state,
          framesDrawn: entry.camera.framesDrawn,
          meanFrameCostMs: Math.round(entry.camera.meanFrameCostMs * 100) / 100,
          viewers: entry.feed.videoListenerCount,
        },
        participants: viewers.length,
        peerConnections: viewers.reduce((sum, session) => sum + session.peerConnectionCount, 0),
      };
    }
    return {
      sockets: this.sessions.size,
      peerConnections: this.subscriptions.size,
      stages,
      participants: joined.map((session) => ({
        participantId: session.participantId ?? '',
        stageId: session.stageId ?? '',
        peerConnections: session.peerConnectionCount,
      })),
      pendingJoinFailures: this.joinFailures.length,
      recentConnectMs: this.connectTimes.map((ms) => Math.round(ms)),
      process: {
        cpuMicros: cpu.user + cpu.system,
        rssBytes: process.memoryUsage.rss(),
        uptimeMs: Math.round(process.uptime() * 1000),
      },
    };
  }

  /**
   * The API ended a user's sign-in (password changed, account disabled or removed): their
   * sessions end as IVS's DisconnectParticipant ends them, with `participant-disconnected`
   * (loopback-only `POST /_control/end-user-sessions`).
   */
  endUserSessions(userId: string): number {
    const matching = [...this.sessions].filter(
      (session) => session.state === 'joined' && this.sessionUsers.get(session) === userId,
    );
    for (const session of matching) session.end('participant-disconnected');
    return matching.length;
  }

  // ---- Fault injection (reached only through the loopback-only /_faults routes). ----

  /** Cuts viewers' connections with no goodbye: by participant, by stage, or all. */
  drop(target: { participantId?: string; stageId?: string; peersOnly?: boolean }): number {
    const matching = this.matchSessions(target);
    for (const session of matching) {
      if (target.peersOnly) session.dropPeers();
      else session.drop();
    }
    return matching.length;
  }

  failNextJoin(failure: JoinFailure): void {
    if (this.joinFailures.length < 100) this.joinFailures.push(failure);
  }

  raiseError(target: {
    participantId?: string;
    stageId?: string;
    code: number;
    category: StageErrorCategoryName;
    message: string;
    fatal: boolean;
  }): number {
    const matching = this.matchSessions(target);
    for (const session of matching) {
      session.sendError(target.code, target.category, target.message, target.fatal);
    }
    return matching.length;
  }

  /** The camera goes off air: its publisher leaves the stage, its subscriptions end. */
  stopCamera(stageId: string): boolean {
    const entry = this.stages.get(stageId);
    if (!entry || entry.camera.state === 'stopped') return false;
    const leaving = publisherId(entry);
    entry.camera.stop();
    entry.audio.stop();
    for (const session of this.matchSessions({ stageId })) session.publisherLeft(leaving);
    return true;
  }

  /** The camera comes back on air as a new publisher participant. */
  startCamera(stageId: string): boolean {
    const entry = this.stages.get(stageId);
    if (!entry || entry.camera.state !== 'stopped') return false;
    entry.generation += 1;
    entry.camera.restart();
    const publisher = this.publisherOf(stageId);
    if (publisher) {
      for (const session of this.matchSessions({ stageId })) {
        session.send({ type: 'participantJoined', participant: publisher });
      }
    }
    return true;
  }

  /** Like a restart of the stage: every connection is cut and every fault cleared. */
  restart(): number {
    const dropped = this.drop({});
    this.joinFailures.length = 0;
    for (const entry of this.stages.values()) {
      if (entry.camera.state === 'stopped') {
        entry.generation += 1;
        entry.camera.restart();
      }
    }
    return dropped;
  }

  /** Closes every session and camera (process shutdown). */
  close(): void {
    this.closing = true;
    for (const session of [...this.sessions]) session.drop();
    for (const entry of this.stages.values()) {
      entry.feed.close();
      entry.camera.close();
      entry.audio.close();
    }
  }

  private matchSessions(target: { participantId?: string; stageId?: string }): ViewerSession[] {
    return [...this.sessions].filter(
      (session) =>
        session.state === 'joined' &&
        (target.participantId === undefined || session.participantId === target.participantId) &&
        (target.stageId === undefined || session.stageId === target.stageId),
    );
  }
}

function publisherId(entry: StageEntry): string {
  return `${entry.stageId}-camera-${entry.generation}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `promise`, or a rejection once `ms` have passed (the work itself goes on). */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
