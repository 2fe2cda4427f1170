/**
 * How one variable's text becomes its value: the pieces config.ts's schema is built from (an empty
 * variable is an unset one; numbers, URLs, lists, secrets, the proxy trust and the IVS stage ARNs),
 * each with the sentence an operator reads when the text is wrong.
 */
import { z } from 'zod';
import { STREAM_IDS, isStreamId, type StreamId } from '@tailcam/protocol/streams';

export const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const optionalText = z.preprocess(emptyToUndefined, z.string().trim().optional());

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number between ${min} and ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

export function integer(defaultValue: number, min: number, max: number) {
  return z.preprocess(emptyToUndefined, wholeNumber(min, max).default(defaultValue));
}

export function optionalInteger(min: number, max: number) {
  return z.preprocess(emptyToUndefined, wholeNumber(min, max).optional());
}

export const urlText = (what: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine((value) => {
        try {
          const url = new URL(value);
          return url.protocol === 'http:' || url.protocol === 'https:';
        } catch {
          return false;
        }
      }, `must be an http(s) URL (${what})`)
      .optional(),
  );

/** A comma-separated list: each non-empty item, trimmed. */
const listItems = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export type StageArns = Partial<Record<StreamId, string>>;

/** `STREAM=ARN,...`: the ARNs it gives, and one sentence for each entry that is not one. */
export function parseStageArns(text: string): { arns: StageArns; problems: string[] } {
  const arns: StageArns = {};
  const problems: string[] = [];
  for (const entry of listItems(text)) {
    const separator = entry.indexOf('=');
    const streamId = separator > 0 ? entry.slice(0, separator).trim() : '';
    const arn = separator > 0 ? entry.slice(separator + 1).trim() : '';
    if (!isStreamId(streamId)) {
      problems.push(`"${entry}" must be STREAM=ARN with STREAM one of ${STREAM_IDS.join(', ')}`);
    } else if (!/^arn:aws[a-z-]*:ivs:[a-z0-9-]+:\d{12}:stage\/[A-Za-z0-9]+$/.test(arn)) {
      problems.push(`the ARN for ${streamId} is not an IVS stage ARN`);
    } else {
      arns[streamId] = arn;
    }
  }
  return { arns, problems };
}

export type TrustProxy = boolean | number | string[];

export const trustProxy = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .trim()
    .transform((text, ctx): TrustProxy => {
      if (text === 'false') return false;
      if (text === 'true') return true;
      if (/^\d+$/.test(text)) return Number(text);
      const addresses = listItems(text);
      if (addresses.every((address) => /^[0-9a-fA-F.:/]+$/.test(address))) return addresses;
      ctx.addIssue({
        code: 'custom',
        message: 'must be true, false, a number of hops, or a comma-separated list of addresses',
      });
      return z.NEVER;
    })
    .default(false),
);

/** The origin an item names, or undefined when it is more (a path) or other than an origin. */
function originOf(item: string): string | undefined {
  try {
    const url = new URL(item);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin === item.replace(/\/$/, '') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export const corsOrigins = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .transform((text, ctx) => {
      const origins: string[] = [];
      for (const item of listItems(text)) {
        const origin = originOf(item);
        if (origin === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `"${item}" is not an origin such as https://app.example`,
          });
        } else {
          origins.push(origin);
        }
      }
      return origins;
    })
    .default([]),
);

export const stageArns = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .transform((text, ctx) => {
      const { arns, problems } = parseStageArns(text);
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return arns;
    })
    .optional(),
);

export const secret = z.preprocess(
  emptyToUndefined,
  z.string().min(32, 'must be at least 32 characters long').optional(),
);
