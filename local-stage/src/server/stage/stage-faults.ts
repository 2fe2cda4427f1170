/**
 * Fault injection, reached only through the loopback-only `/_faults` routes (STAGE_FAULTS=1,
 * http-server.ts): cut connections, refuse the next joins, raise errors, drop RTP as a lossy link
 * would, hold a synthetic camera off air, or act as a restart would.
 */
import type { StageErrorCategoryName } from '../../signalling';
import type { LossAnswer } from '../../control';
import type { Subscription } from '../media/viewer/subscription';
import type { ViewerSession } from '../sessions/viewer-session';
import type { WhepSession } from '../sessions/whep-session';
import type { AircraftStage } from './aircraft-stage';

export interface JoinFailure {
  stageId?: string;
  code: number;
  /** What the viewer's join error says; IVS's text for the code when absent. */
  message?: string;
}

/** Whom a fault reaches: a viewer, a stage's viewers, or all. */
export interface FaultTarget {
  participantId?: string;
  stageId?: string;
}

/** What the faults act on: the stage's own collections. */
export interface FaultSubjects {
  stages: ReadonlyMap<string, AircraftStage>;
  subscriptions: ReadonlySet<Subscription>;
  whepSessions(): Iterable<WhepSession>;
  /** The joined socket sessions that `target` names. */
  matchSessions(target: FaultTarget): ViewerSession[];
}

const MAX_PENDING_JOIN_FAILURES = 100;

export class StageFaults {
  private readonly joinFailures: JoinFailure[] = [];
  /** The loss fault for subscriptions yet to open (`newSubscriptions`), if any. */
  private lossForNew: { stageId?: string; percent: number } | undefined;

  constructor(private readonly subjects: FaultSubjects) {}

  get pendingJoinFailures(): number {
    return this.joinFailures.length;
  }

  failNextJoin(failure: JoinFailure): void {
    if (this.joinFailures.length < MAX_PENDING_JOIN_FAILURES) this.joinFailures.push(failure);
  }

  /** The failure the next join to `stageId` meets, if one is pending (it is used up). */
  takeJoinFailure(stageId: string): JoinFailure | undefined {
    const index = this.joinFailures.findIndex(
      (failure) => failure.stageId === undefined || failure.stageId === stageId,
    );
    return index >= 0 ? this.joinFailures.splice(index, 1)[0] : undefined;
  }

  /** Cuts viewers' connections with no goodbye: by participant, by stage, or all. */
  drop(target: FaultTarget & { peersOnly?: boolean }): number {
    const matching = this.subjects.matchSessions(target);
    for (const session of matching) {
      if (target.peersOnly) session.dropPeers();
      else session.drop();
    }
    return matching.length;
  }

  /**
   * Drops `percent` of the RTP sent on the matching subscriptions (a viewer's, a stage's, or
   * all), as a lossy link would; and counts what their video forwarding did about it.
   */
  setOutgoingLoss(
    target: FaultTarget & { percent: number; newSubscriptions?: boolean },
  ): LossAnswer {
    if (target.newSubscriptions) {
      this.lossForNew =
        target.percent > 0 ? { stageId: target.stageId, percent: target.percent } : undefined;
    }
    const matching =
      target.participantId === undefined
        ? [...this.subjects.subscriptions].filter(
            (subscription) =>
              target.stageId === undefined || subscription.stageId === target.stageId,
          )
        : this.subjects.matchSessions(target).flatMap((session) => session.openSubscriptions);
    const answer = { subscriptions: 0, dropped: 0, nacks: 0, retransmitted: 0, notCached: 0 };
    for (const subscription of matching) {
      subscription.lossPercent = target.percent;
      answer.subscriptions += 1;
      answer.dropped += subscription.droppedPackets;
      answer.nacks += subscription.videoForwarding?.nacks ?? 0;
      answer.retransmitted += subscription.videoForwarding?.retransmitted ?? 0;
      answer.notCached += subscription.videoForwarding?.notCached ?? 0;
    }
    return answer;
  }

  /** A subscription opened: the loss fault for new subscriptions reaches it. */
  subscriptionOpened(subscription: Subscription): void {
    const loss = this.lossForNew;
    if (loss && (loss.stageId === undefined || loss.stageId === subscription.stageId)) {
      subscription.lossPercent = loss.percent;
    }
  }

  raiseError(
    target: FaultTarget & {
      code: number;
      category: StageErrorCategoryName;
      message: string;
      fatal: boolean;
    },
  ): number {
    const matching = this.subjects.matchSessions(target);
    for (const session of matching) {
      session.sendError(target.code, target.category, target.message, target.fatal);
    }
    return matching.length;
  }

  /**
   * The synthetic camera goes off air: the camera process is told not to publish it, its session
   * ends, and viewers see the next publisher (an encoder) or none.
   */
  stopCamera(stageId: string): boolean {
    return this.subjects.stages.get(stageId)?.holdCameraOffAir() ?? false;
  }

  /** The synthetic camera may publish again: it comes back as a new participant. */
  startCamera(stageId: string): boolean {
    return this.subjects.stages.get(stageId)?.allowCameraOnAir() ?? false;
  }

  /** Like a restart of the stage: every connection is cut and every fault cleared. */
  restart(): number {
    const dropped = this.drop({});
    for (const session of [...this.subjects.whepSessions()]) {
      session.subscription.close('stage-restart', false);
    }
    this.joinFailures.length = 0;
    for (const stageId of this.subjects.stages.keys()) this.startCamera(stageId);
    return dropped;
  }
}
