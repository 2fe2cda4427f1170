/**
 * The local stage: one stage per stream id, each with one publisher (its synthetic camera), and
 * the viewers' sessions. Admits joins (token checks, injected faults, token reuse), answers the
 * health and stats questions, and carries out the fault injections.
 */
import type { WebSocket } from 'ws';
import type { ParticipantDescription, StageErrorCategoryName } from '../signalling';
import { STAGE_ERROR_CODES } from '../signalling';
import { CabinAudio } from './cabin-audio';
import { Camera } from './camera';
import { CameraFeed } from './camera-feed';
import type { StageStats } from './control';
import { JoinRefusedError, verifyJoinToken } from './join-token';
import type { Subscription } from './subscription';
import { ViewerSession } from './viewer-session';

export interface LocalStageOptions {
  stageIds: readonly string[];
  secret: Uint8Array;
  camera: { width: number; height: number; fps: number; idleMs: number };
  /** Most sessions at once; further joins are refused with STAGE_AT_CAPACITY. */
  maxSessions?: number;
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

export class LocalStage {
  private readonly options: LocalStageOptions;
  private readonly stages = new Map<string, StageEntry>();
  private readonly sessions = new Set<ViewerSession>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly joinFailures: JoinFailure[] = [];
  private readonly connectTimes: number[] = [];
  readonly log: (message: string, detail?: unknown) => void;

  constructor(options: LocalStageOptions) {
    this.options = options;
    this.log = options.log ?? (() => undefined);
    options.stageIds.forEach((stageId, streamIndex) => {
      const camera = new Camera({ streamId: stageId, streamIndex, ...options.camera });
      camera.warmUp();
      const audio = new CabinAudio(streamIndex);
      const feed = new CameraFeed({ camera, audio, log: this.log });
      this.stages.set(stageId, { stageId, camera, audio, feed, generation: 1 });
    });
  }

  /** Takes a new events socket; the session admits itself through `admit`. */
  accept(socket: WebSocket): ViewerSession {
    const session = new ViewerSession(socket, this);
    this.sessions.add(session);
    return session;
  }

  async admit(
    session: ViewerSession,
    token: string,
  ): Promise<{ participantId: string; stageId: string; participants: ParticipantDescription[] }> {
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
    const joined = [...this.sessions].filter((other) => other.state === 'joined');
    if (joined.length >= (this.options.maxSessions ?? 64)) {
      throw new JoinRefusedError(STAGE_ERROR_CODES.STAGE_AT_CAPACITY);
    }
    // A token holds one connection at a time (as with IVS): the newer join wins.
    for (const other of joined) {
      if (other !== session && other.participantId === claims.jti) other.end('token-reused');
    }
    const publisher = this.publisherOf(claims.topic);
    return {
      participantId: claims.jti,
      stageId: claims.topic,
      participants: publisher ? [publisher] : [],
    };
  }

  publisherOf(stageId: string): ParticipantDescription | undefined {
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

  /** Connects every camera's encoder to its tap (before the stage takes viewers). */
  async ready(): Promise<void> {
    await Promise.all([...this.stages.values()].map((entry) => entry.feed.ready()));
  }

  /** The feed of a publisher on the stage, while it is on air. */
  publisherMedia(stageId: string, participantId: string): { feed: CameraFeed } | undefined {
    const entry = this.stages.get(stageId);
    if (!entry || entry.camera.state === 'stopped' || publisherId(entry) !== participantId) {
      return undefined;
    }
    return entry;
  }

  subscriptionOpened(subscription: Subscription): void {
    this.subscriptions.add(subscription);
  }

  subscriptionClosed(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    if (subscription.connectedAt !== undefined) {
      this.connectTimes.push(subscription.connectedAt - subscription.requestedAt);
      if (this.connectTimes.length > 20) this.connectTimes.shift();
    }
  }

  sessionClosed(session: ViewerSession): void {
    this.sessions.delete(session);
  }

  /** Ready when every camera can start at once (none stopped by a fault). */
  health() {
    const cameras = Object.fromEntries(
      [...this.stages.values()].map((entry) => [entry.stageId, entry.camera.state]),
    );
    return { ready: true, cameras };
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
