/**
 * The events' variables (docs/decisions/0098-stage-events-and-webhooks.md): where the webhooks go,
 * the secret they are signed with (else one generated into DATA_DIR, as the other secrets are),
 * how many events a destination's queue may hold, and the off-air grace.
 */
import { z } from 'zod';
import { emptyToUndefined, integer, secret } from '../config-values';

export const DEFAULT_WEBHOOK_QUEUE_MAX = 10_000;
export const DEFAULT_OFF_AIR_GRACE_SECONDS = 10;
const MAX_WEBHOOK_URLS = 10;

export const eventsVariables = {
  EVENT_WEBHOOK_SECRET: secret,
  EVENT_WEBHOOK_QUEUE_MAX: integer(DEFAULT_WEBHOOK_QUEUE_MAX, 10, 1_000_000),
  OFF_AIR_GRACE_SECONDS: integer(DEFAULT_OFF_AIR_GRACE_SECONDS, 1, 3_600),
  EVENT_WEBHOOK_URLS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .transform((text, ctx) => {
        const urls: string[] = [];
        const items = text
          .split(',')
          .map((each) => each.trim())
          .filter((each) => each !== '');
        for (const [index, item] of items.entries()) {
          let url: URL | undefined;
          try {
            url = new URL(item);
          } catch {
            url = undefined;
          }
          if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
            // The item itself is not repeated: a URL may carry a consumer's token.
            ctx.addIssue({
              code: 'custom',
              message: `item ${index + 1} is not an http(s) URL`,
            });
          } else if (url.username !== '' || url.password !== '') {
            ctx.addIssue({
              code: 'custom',
              message: `item ${index + 1} carries a user name or password: put a token in its path or query instead`,
            });
          } else {
            urls.push(url.href);
          }
        }
        if (urls.length > MAX_WEBHOOK_URLS) {
          ctx.addIssue({ code: 'custom', message: `at most ${MAX_WEBHOOK_URLS} URLs` });
        }
        return [...new Set(urls)];
      })
      .default([]),
  ),
};

type EventsVariables = z.output<z.ZodObject<typeof eventsVariables>>;

export interface EventsSettings {
  /** Where the webhooks go; none: no webhook is sent (the operator's page still updates). */
  webhookUrls: string[];
  /** Signs them; unset: generated into DATA_DIR/event-webhook-secret. */
  webhookSecret: string | undefined;
  /** Events each destination's queue holds at most; past it the oldest are dropped. */
  queueMax: number;
  offAirGraceSeconds: number;
}

/** With IVS, IVS's own events reach the consumer through EventBridge (docs/deployment.md). */
export function checkEventsVariables(
  env: Partial<EventsVariables> & { STAGE_PROVIDER?: 'local' | 'ivs' },
  parsed: (name: keyof EventsVariables | 'STAGE_PROVIDER') => boolean,
  problem: (name: keyof EventsVariables, message: string) => void,
): void {
  if (
    parsed('STAGE_PROVIDER') &&
    parsed('EVENT_WEBHOOK_URLS') &&
    env.STAGE_PROVIDER === 'ivs' &&
    (env.EVENT_WEBHOOK_URLS?.length ?? 0) > 0
  ) {
    problem(
      'EVENT_WEBHOOK_URLS',
      "unused with STAGE_PROVIDER=ivs: IVS's own events reach the consumer through an EventBridge rule (docs/deployment.md, Events)",
    );
  }
}

export function eventsSettings(env: EventsVariables): EventsSettings {
  return {
    webhookUrls: env.EVENT_WEBHOOK_URLS,
    webhookSecret: env.EVENT_WEBHOOK_SECRET,
    queueMax: env.EVENT_WEBHOOK_QUEUE_MAX,
    offAirGraceSeconds: env.OFF_AIR_GRACE_SECONDS,
  };
}
