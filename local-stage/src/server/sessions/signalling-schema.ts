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

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('join'), token: z.string().min(1).max(8192) }),
  z.object({
    type: z.literal('subscribe'),
    requestId: id,
    participantId: id,
    media: z.object({ audio: z.boolean(), video: z.boolean() }),
  }),
  z.object({ type: z.literal('answer'), subscriptionId: id, sdp }),
  z.object({ type: z.literal('candidate'), subscriptionId: id, candidate }),
  z.object({ type: z.literal('unsubscribe'), subscriptionId: id }),
  z.object({ type: z.literal('leave') }),
]) satisfies z.ZodType<ClientMessage>;

/** The message in `text`, or null when it is not valid JSON or not a known message. */
export function parseClientMessage(text: string): ClientMessage | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = clientMessageSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
