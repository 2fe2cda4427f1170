/** Parses what a client sends over the events socket (the types are in ../signalling.ts). */
import { z } from 'zod';
import type { ClientMessage } from '../../signalling';

const id = z.string().min(1).max(128);
const sdp = z
  .string()
  .min(1)
  .max(64 * 1024);
const candidate = z
  .object({
    candidate: z.string().max(1024),
    sdpMid: z.string().max(64).nullable(),
    sdpMLineIndex: z.number().int().min(0).max(64).nullable(),
  })
  .nullable();

/** An RTP stream id as offers carry them (RFC 8851: letters, digits, `-` and `_`). */
const rid = z.string().regex(/^[A-Za-z0-9_-]{1,16}$/, 'a rid is 1 to 16 letters, digits, - or _');

export const preferLayerSchema = z.object({
  type: z.literal('preferLayer'),
  subscriptionId: id,
  rid: rid.nullable(),
});

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('join'),
    token: z.string().min(1).max(8192),
    offers: z
      .object({ audio: z.boolean(), video: z.boolean(), standby: z.literal(true).optional() })
      .optional(),
  }),
  z.object({
    type: z.literal('subscribe'),
    requestId: id,
    participantId: id,
    media: z.object({ audio: z.boolean(), video: z.boolean() }),
    initialLayer: z.enum(['lowest_quality', 'highest_quality']).optional(),
    standby: z.literal(true).optional(),
  }),
  z.object({ type: z.literal('resume'), subscriptionId: id }),
  preferLayerSchema,
  z.object({
    type: z.literal('answer'),
    subscriptionId: id,
    sdp,
    inBandMessaging: z.literal(true).optional(),
  }),
  z.object({ type: z.literal('candidate'), subscriptionId: id, candidate }),
  z.object({ type: z.literal('unsubscribe'), subscriptionId: id }),
  z.object({ type: z.literal('leave') }),
]) satisfies z.ZodType<ClientMessage>;

/**
 * The message in `text`; null when it is not valid JSON or not a known message. A `preferLayer`
 * that does not parse is refused on its own (`invalid`, saying why): the session goes on.
 */
export function parseClientMessage(text: string): ClientMessage | { invalid: string } | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = clientMessageSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  if (typeof json === 'object' && json !== null && 'type' in json && json.type === 'preferLayer') {
    const issues = preferLayerSchema.safeParse(json).error?.issues ?? [];
    const why = issues.map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`);
    return { invalid: `Invalid preferLayer (${why.join('; ')})` };
  }
  return null;
}
