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
import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import { SYNTHETIC_CAMERA_USER_ID } from '@tailcam/protocol/participant-token';

/** The `user_id` of the camera process's publish tokens (an operator's token never has it). */
export { SYNTHETIC_CAMERA_USER_ID };

/** The link's path on the stage process: not under /stage/, so the API never proxies it. */
export const CAMERA_LINK_PATH = '/_control/cameras';

const LINK_AUDIENCE = 'tailcam-camera-link';
const LINK_TOKEN_TTL_SECONDS = 60;

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
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sub: SYNTHETIC_CAMERA_USER_ID })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(LINK_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + LINK_TOKEN_TTL_SECONDS)
    .sign(secret);
}

/** True when `token` is a live link token signed with `secret`. */
export async function verifyCameraLinkToken(token: string, secret: Uint8Array): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      audience: LINK_AUDIENCE,
    });
    return payload.sub === SYNTHETIC_CAMERA_USER_ID;
  } catch {
    return false;
  }
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
