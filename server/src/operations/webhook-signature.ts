/**
 * The signature of a webhook delivery (decision 0098): HMAC-SHA256 with the shared secret over
 * `{timestamp}.{body}`, the timestamp (Unix seconds) being the attempt's, sent beside it. A
 * consumer recomputes it over the raw body and refuses a stale timestamp, so a captured request
 * cannot be replayed later. docs/deployment.md's "Events" has the consumer's side.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'tailcam-signature';
export const TIMESTAMP_HEADER = 'tailcam-timestamp';
export const EVENT_ID_HEADER = 'tailcam-event-id';

/** `v1=` and the hex HMAC-SHA256 of `{timestamp}.{body}`. */
export function signWebhook(secret: Uint8Array, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret)
    .update(`${String(timestamp)}.${body}`)
    .digest('hex');
  return `v1=${mac}`;
}

/**
 * Whether `signature` is `body`'s at `timestamp` with `secret`, and the timestamp within
 * `toleranceSeconds` of `nowSeconds`. Compared in constant time.
 */
export function verifyWebhook(options: {
  secret: Uint8Array;
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}): boolean {
  const { timestamp, signature } = options;
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) {
    return false;
  }
  if (Math.abs(options.nowSeconds - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    return false;
  }
  const expected = Buffer.from(signWebhook(options.secret, Number(timestamp), options.body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
