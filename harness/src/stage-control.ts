/**
 * A client for the local stage's loopback-only control routes (`/_stats`, `/_faults/...`, on the
 * stage's own port, never behind the API). The stats type and the fault bodies' schemas are the
 * stage's own (`@tailcam/local-stage/control`); fault routes need the stage started with
 * STAGE_FAULTS=1, as Product starts it.
 */
import {
  faultBodies,
  lossAnswer,
  stageStatsSchema,
  type StageStats,
} from '@tailcam/local-stage/control';
import { z } from 'zod';

export type { StageStats };

export type DropTarget = z.input<typeof faultBodies.drop>;
export type CameraCommand = z.input<typeof faultBodies.camera>;
export type JoinFailure = z.input<typeof faultBodies.failNextJoin>;
export type StageError = z.input<typeof faultBodies.stageError>;
export type LossTarget = z.input<typeof faultBodies.loss>;

const dropped = z.object({ dropped: z.number() });
const cameraChanged = z.object({ changed: z.boolean() });
const pendingFailures = z.object({ pending: z.number() });
const reached = z.object({ reached: z.number() });
const asleep = z.object({ asleep: z.boolean() });

export interface StageControl {
  stats(): Promise<StageStats>;
  /** Waits (bounded) until the stage holds no peer connection, socket or thumbnail session. */
  idle(timeoutMs?: number): Promise<StageStats>;
  /** Cuts viewers' connections as a network would (no goodbye); how many were cut. */
  drop(target: DropTarget): Promise<z.infer<typeof dropped>>;
  camera(command: CameraCommand): Promise<z.infer<typeof cameraChanged>>;
  failNextJoin(failure: JoinFailure): Promise<z.infer<typeof pendingFailures>>;
  /** The cameras sleep now, as after the idle spell (decision 0074), unless anyone watches. */
  sleepCameras(): Promise<z.infer<typeof asleep>>;
  /** Raises a stage `error` event at the matching viewers; how many it reached. */
  raiseError(error: StageError): Promise<z.infer<typeof reached>>;
  /**
   * Drops a share of the RTP sent to the matching viewers (0 ends it); what their video
   * forwarding did so far (packets dropped, NACKs, retransmissions).
   */
  loss(target: LossTarget): Promise<z.infer<typeof lossAnswer>>;
}

export function stageControl(stageUrl: string): StageControl {
  async function call<T>(path: string, reply: z.ZodType<T>, body?: unknown): Promise<T> {
    const send = () =>
      fetch(`${stageUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // A kept-alive connection the stage closes as idle just as a request goes out fails with
    // 'other side closed' (a poll of /_stats can meet it). A GET is asked again; a fault (POST)
    // is never sent twice.
    const response = await send().catch((error: unknown) => {
      if (body !== undefined) throw error;
      return send();
    });
    if (!response.ok)
      throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return reply.parse(await response.json());
  }
  const stats = () => call('/_stats', stageStatsSchema);
  return {
    stats,
    async idle(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = await stats();
        // The thumbnail process's sessions too: they end 4 s after /home's last picture request.
        const quiet = now.peerConnections === 0 && now.sockets === 0 && now.thumbnailSessions === 0;
        if (quiet || Date.now() > deadline) return now;
        await new Promise((done) => setTimeout(done, 100));
      }
    },
    drop: (target) => call('/_faults/drop', dropped, faultBodies.drop.parse(target)),
    camera: (command) => call('/_faults/camera', cameraChanged, faultBodies.camera.parse(command)),
    failNextJoin: (failure) =>
      call('/_faults/fail-next-join', pendingFailures, faultBodies.failNextJoin.parse(failure)),
    sleepCameras: () => call('/_faults/cameras-sleep', asleep, {}),
    raiseError: (error) =>
      call('/_faults/stage-error', reached, faultBodies.stageError.parse(error)),
    loss: (target) => call('/_faults/loss', lossAnswer, faultBodies.loss.parse(target)),
  };
}
