/**
 * Whether a viewer's join would be served now, and would show video
 * (docs/decisions/0028-stage-readiness.md): a self-check once at start-up (a participant token
 * signed with the secret passes the joins' own check), then what can change while running, read
 * cheaply since health is polled.
 */
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { JoinRefusedError, verifyJoinToken } from '../sessions/join-token';
import type { TokenGenerations } from '../sessions/token-generations';
import type { AircraftStage, OnAir } from './aircraft-stage';

/**
 * Every aircraft with a synthetic camera has a publisher, unless a fault holds its camera off air
 * or the cameras sleep (camera-sleep.ts: asleep, not broken; a join wakes them), and the
 * self-check passed.
 */
export type StageHealth = { publishers: Record<string, OnAir> } & (
  { ready: true } | { ready: false; reason: string }
);

export class StageHealthCheck {
  /** The start-up self-check's finding: undefined until it ran, null when it found nothing. */
  private startupProblem: string | null | undefined;

  constructor(
    private readonly options: {
      stages: ReadonlyMap<string, AircraftStage>;
      secret: Uint8Array;
      /** The aircraft whose synthetic camera the camera process publishes. */
      syntheticCameras: readonly string[];
      generations: TokenGenerations;
      isClosing: () => boolean;
      /** The cameras sleep, or were woken so lately that they may still be on their way. */
      camerasResting: () => boolean;
    },
  ) {}

  /**
   * Tries, once at start-up, what every join needs. Never throws: what it finds is what `health()`
   * reports. (The cameras are another process; health waits for their publishers.)
   */
  async selfCheck(): Promise<StageHealth> {
    const tokenProblem = await this.checkTokens();
    this.startupProblem = tokenProblem ?? null;
    return this.health();
  }

  /** Cheap (health is polled): the self-check's finding, then what can change while running. */
  health(): StageHealth {
    const publishers = Object.fromEntries(
      [...this.options.stages.values()].map((stage) => [stage.stageId, stage.onAir]),
    );
    const reason = this.notReadyReason();
    return reason === undefined
      ? { ready: true, publishers }
      : { ready: false, reason, publishers };
  }

  private notReadyReason(): string | undefined {
    if (this.options.isClosing()) return 'shutting down';
    if (this.startupProblem === undefined) return 'starting';
    if (this.startupProblem !== null) return this.startupProblem;
    if (!this.options.generations.loaded) {
      return "waiting for the accounts' token generations from the API";
    }
    if (this.options.camerasResting()) return undefined;
    const waiting = this.options.syntheticCameras.find((stageId) => {
      const stage = this.options.stages.get(stageId);
      return stage !== undefined && stage.cameraOnAir && stage.shown === undefined;
    });
    if (waiting) return `no camera publishes ${waiting} yet`;
    return undefined;
  }

  /** Signs a token as the API does and verifies it as a join does: the secret works both ways. */
  private async checkTokens(): Promise<string | undefined> {
    const { secret, stages, generations } = this.options;
    const stageIds = [...stages.keys()];
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
      await verifyJoinToken(token, { secret, stageIds, generations });
      return undefined;
    } catch (error) {
      const detail =
        error instanceof JoinRefusedError ? error.details || error.message : messageOf(error);
      return `participant tokens cannot be verified: ${detail}`;
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
