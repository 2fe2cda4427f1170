/**
 * The link between the stage and the camera process (docs/decisions/0054-cameras-publish-over-whip.md).
 *
 * The synthetic cameras publish to the stage over WHIP like any encoder, and WHIP has no way to
 * tell an encoder that nobody watches. So the camera process also holds one WebSocket to the
 * stage, loopback only, authenticated with a token signed by the stage's secret, on which the
 * stage says, per aircraft, whether anyone watches its synthetic camera (the camera draws and
 * encodes only then), when a viewer needs a key frame now (the camera hands the encoder its
 * latest frame at once, after the PLI that went over RTCP), and when the cameras sleep (their
 * WHIP sessions ended while nobody watches, decision 0074). Real encoders are never asked.
 *
 * The camera process's WHIP sessions are recognised by their token's `user_id`
 * (`SYNTHETIC_CAMERA_USER_ID`): only a holder of the secret can sign one.
 */
import { z } from 'zod';
import { issueLoopbackToken, verifyLoopbackToken } from '@tailcam/protocol/loopback-token';
import { SYNTHETIC_CAMERA_USER_ID } from '@tailcam/protocol/participant-token';

/** The `user_id` of the camera process's publish tokens (an operator's token never has it). */
export { SYNTHETIC_CAMERA_USER_ID };

/** The link's path on the stage process: not under /stage/, so the API never proxies it. */
export const CAMERA_LINK_PATH = '/_control/cameras';

const LINK_TOKEN = { audience: 'tailcam-camera-link', subject: SYNTHETIC_CAMERA_USER_ID };

export const cameraLinkMessageSchema = z.discriminatedUnion('type', [
  /** Whether the aircraft's synthetic camera has viewers of its video, of its sound. */
  z.object({
    type: z.literal('demand'),
    stageId: z.string().min(1).max(64),
    video: z.boolean(),
    audio: z.boolean(),
  }),
  /** A viewer waits for a key frame: a PLI is on its way; hand the encoder a frame now. */
  z.object({ type: z.literal('key-frame'), stageId: z.string().min(1).max(64) }),
  /**
   * Whether the aircraft's camera may be on air (fault injection, `POST /_faults/camera`): on
   * `false` the camera process ends that WHIP session and does not publish again until `true`.
   * On connect the stage sends one per aircraft whose camera is held off air.
   */
  z.object({ type: z.literal('on-air'), stageId: z.string().min(1).max(64), onAir: z.boolean() }),
  /**
   * Whether every camera sleeps (camera-sleep.ts, decision 0074): on `true` each ends its WHIP
   * session and stays ready; on `false` each publishes again at once. Sent first on connect.
   */
  z.object({ type: z.literal('sleep'), asleep: z.boolean() }),
]);

export type CameraLinkMessage = z.infer<typeof cameraLinkMessageSchema>;

/** The Bearer token the camera process opens the link with (short-lived: one per connection). */
export function issueCameraLinkToken(secret: Uint8Array, now = new Date()): Promise<string> {
  return issueLoopbackToken(secret, LINK_TOKEN, now);
}

/** True when `token` is a live link token signed with `secret`. */
export function verifyCameraLinkToken(token: string, secret: Uint8Array): Promise<boolean> {
  return verifyLoopbackToken(token, secret, LINK_TOKEN);
}

/** Parses one message from the stage; undefined when it is not one. */
export function parseCameraLinkMessage(text: string): CameraLinkMessage | undefined {
  try {
    const parsed = cameraLinkMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The camera process's one message to the stage (decision 0094): an in-band message for the
 * frame its camera captured at `captureTimeMs` (epoch ms), repeated `repeatCount` times, which the
 * stage carries to the viewers who ask for them. Binary, so the payload (MISB ST 0601 KLV) goes as
 * it is: `[1][stage id length][stage id (ASCII)][capture time: float64 BE][repeat count][uuid: 16
 * bytes][payload]`.
 */
export interface CameraInBandMessage {
  stageId: string;
  captureTimeMs: number;
  repeatCount: number;
  uuid: Uint8Array;
  payload: Uint8Array;
}

const IN_BAND_TYPE = 1;

export function encodeCameraInBandMessage(message: CameraInBandMessage): Buffer {
  const stageId = Buffer.from(message.stageId, 'ascii');
  const head = Buffer.alloc(2 + stageId.length + 8 + 1);
  head[0] = IN_BAND_TYPE;
  head[1] = stageId.length;
  stageId.copy(head, 2);
  head.writeDoubleBE(message.captureTimeMs, 2 + stageId.length);
  head[head.length - 1] = message.repeatCount;
  return Buffer.concat([head, message.uuid, message.payload]);
}

/** Undefined when `data` is not one (the stage ignores it). */
export function parseCameraInBandMessage(data: Buffer): CameraInBandMessage | undefined {
  if (data.length < 2 || data[0] !== IN_BAND_TYPE) return undefined;
  const idLength = data[1] ?? 0;
  const timeAt = 2 + idLength;
  const uuidAt = timeAt + 9;
  const payloadAt = uuidAt + 16;
  if (idLength === 0 || idLength > 64 || data.length <= payloadAt) return undefined;
  const captureTimeMs = data.readDoubleBE(timeAt);
  if (!Number.isFinite(captureTimeMs)) return undefined;
  return {
    stageId: data.subarray(2, timeAt).toString('ascii'),
    captureTimeMs,
    repeatCount: data[timeAt + 8] ?? 0,
    uuid: new Uint8Array(data.subarray(uuidAt, payloadAt)),
    payload: new Uint8Array(data.subarray(payloadAt)),
  };
}
