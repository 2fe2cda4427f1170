/**
 * One aircraft's stage: its WHIP sessions, the publisher its viewers see, and the demand it sends
 * the camera process. Viewers see the connected real encoder, else the synthetic camera, each a
 * participant of its own (docs/decisions/0054-cameras-publish-over-whip.md); a change is the old
 * participant leaving and a new one joining, as with IVS.
 */
import type { CameraLinkMessage } from '../../camera-link';
import type { ParticipantDescription } from '../../signalling';
import type { Publisher } from '../media/publisher/publisher';
import type { StageLogger } from '../../stage-log';

/** What viewers see now, as which participant. */
export interface ShownPublisher {
  publisher: Publisher;
  participantId: string;
}

/** Who publishes on each stage, as viewers would see it. */
export type OnAir = 'camera' | 'encoder' | 'none';

export interface AircraftStageDeps {
  /** A message for the camera process (demand, on air), sent when its link is up. */
  sendToCameras(message: CameraLinkMessage): void;
  /**
   * The shown publisher changed, the new state already in place: `leaving` (if any) leaves, then
   * `joined()` (read after the leave, which may change the stage again) is the one that joins.
   */
  shownChanged(
    leaving: ShownPublisher | undefined,
    joined: () => ParticipantDescription | undefined,
  ): void;
  /** Whether a person watches the shown publisher changed (`watchedByPerson`). */
  watchedChanged(): void;
  log: StageLogger;
}

export class AircraftStage {
  /** Every WHIP session on this stage, connecting or connected, by its id. */
  readonly publishers = new Map<string, Publisher>();
  /** The connected real encoder, if any: viewers see it. */
  private encoder: Publisher | undefined;
  /** The connected synthetic camera, if any: viewers see it when no encoder publishes. */
  private cameraValue: Publisher | undefined;
  private shownValue: ShownPublisher | undefined;
  /** Participants shown so far: each new one gets a new id, as a rejoin does with IVS. */
  private shownCount = 0;
  private cameraOnAirValue = true;
  private demandValue = { video: false, audio: false };
  private watchedValue = false;

  constructor(
    readonly stageId: string,
    private readonly deps: AircraftStageDeps,
  ) {}

  /** What viewers see now, if anything. */
  get shown(): ShownPublisher | undefined {
    return this.shownValue;
  }

  get camera(): Publisher | undefined {
    return this.cameraValue;
  }

  /** False while a fault holds the synthetic camera off air. */
  get cameraOnAir(): boolean {
    return this.cameraOnAirValue;
  }

  /** The demand last sent to the camera process. */
  get demand(): { video: boolean; audio: boolean } {
    return this.demandValue;
  }

  /**
   * Whether a person receives the shown publisher's video: not the thumbnail process, not the
   * recorder. The recorder records a synthetic camera only then
   * (docs/decisions/0084-recording-what-a-person-watches.md).
   */
  get watchedByPerson(): boolean {
    return this.watchedValue;
  }

  get onAir(): OnAir {
    return this.shownValue?.publisher.kind ?? 'none';
  }

  /** The participant the viewers see, if any publishes here. */
  describeShown(): ParticipantDescription | undefined {
    const shown = this.shownValue;
    if (!shown) return undefined;
    const { publisher } = shown;
    return {
      id: shown.participantId,
      userId: publisher.kind === 'camera' ? this.stageId : publisher.userId,
      attributes: { kind: publisher.kind, tailNumber: this.stageId },
      publishing: true,
      media: publisher.media,
    };
  }

  /** A publisher connected, closed, or gained or lost a listener. */
  publisherChanged(publisher: Publisher): void {
    if (publisher.state === 'connected') publisher.seat.markConnected();
    if (publisher.state === 'closed') publisher.seat.release();
    if (publisher.state === 'connected' && !this.isCurrent(publisher)) {
      // The newest of a kind takes over: an encoder that reconnects after a drop is never locked
      // out by its own stale session, and a restarted camera process replaces the old one's.
      for (const other of this.publishers.values()) {
        if (other !== publisher && other.kind === publisher.kind) other.close('replaced');
      }
      if (publisher.kind === 'encoder') this.encoder = publisher;
      else this.cameraValue = publisher;
      this.deps.log.info(`publisher ${publisher.id} (${publisher.kind}) on air on ${this.stageId}`);
    }
    if (publisher.state === 'closed') {
      this.publishers.delete(publisher.id);
      if (this.encoder === publisher) this.encoder = undefined;
      if (this.cameraValue === publisher) this.cameraValue = undefined;
      if (publisher.connectedAt !== undefined) {
        this.deps.log.info(
          `publisher ${publisher.id} (${publisher.kind}) left ${this.stageId}: ${publisher.endReason}`,
        );
      }
    }
    this.showCurrent();
    this.updateDemand();
    const watched = this.shownValue?.publisher.watchedByPerson ?? false;
    if (watched !== this.watchedValue) {
      this.watchedValue = watched;
      this.deps.watchedChanged();
    }
  }

  /** The synthetic camera goes off air: the camera process is told, its session ends. */
  holdCameraOffAir(): boolean {
    if (!this.cameraOnAirValue) return false;
    this.cameraOnAirValue = false;
    this.deps.sendToCameras({ type: 'on-air', stageId: this.stageId, onAir: false });
    for (const publisher of this.publishers.values()) {
      if (publisher.kind === 'camera') publisher.close('camera-stopped');
    }
    return true;
  }

  /** The synthetic camera may publish again: it comes back as a new participant. */
  allowCameraOnAir(): boolean {
    if (this.cameraOnAirValue) return false;
    this.cameraOnAirValue = true;
    this.deps.sendToCameras({ type: 'on-air', stageId: this.stageId, onAir: true });
    return true;
  }

  /** Closes every WHIP session of a kind, or all of them. */
  closePublishers(reason: string, kind?: Publisher['kind']): void {
    for (const publisher of [...this.publishers.values()]) {
      if (kind === undefined || publisher.kind === kind) publisher.close(reason);
    }
  }

  private isCurrent(publisher: Publisher): boolean {
    return this.encoder === publisher || this.cameraValue === publisher;
  }

  /**
   * Viewers see the encoder, else the camera. A change is the old participant leaving (its
   * subscriptions end) and a new one joining: the app attaches the new participant's video.
   */
  private showCurrent(): void {
    const current = this.encoder ?? this.cameraValue;
    if (this.shownValue?.publisher === current) return;
    const leaving = this.shownValue;
    // The new state first: ending the old subscriptions calls back here (their publisher loses
    // listeners), and must find nothing left to change.
    if (current) this.shownCount += 1;
    const shown = current && {
      publisher: current,
      participantId: `${this.stageId}-${current.kind}-${this.shownCount}`,
    };
    this.shownValue = shown;
    this.deps.shownChanged(leaving, () =>
      shown && this.shownValue === shown ? this.describeShown() : undefined,
    );
  }

  /** Tells the camera process when its camera's viewers come and go. */
  private updateDemand(): void {
    const camera = this.cameraValue;
    const demand = {
      video: (camera?.videoListenerCount ?? 0) > 0,
      audio: (camera?.audioListenerCount ?? 0) > 0,
    };
    if (demand.video === this.demandValue.video && demand.audio === this.demandValue.audio) return;
    this.demandValue = demand;
    this.deps.sendToCameras({ type: 'demand', stageId: this.stageId, ...demand });
  }
}
