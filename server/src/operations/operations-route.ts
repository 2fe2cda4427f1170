/**
 * `GET /api/operations[?after={version}]`: what the operator's page shows (docs/product.md#operations),
 * read-only, to signed-in users. Without `after`, the snapshot at once; with it, a long poll
 * (decision 0099): the answer comes as soon as the state's version is past `after`, or after
 * `OPERATIONS_LONG_POLL_MS` with the same snapshot, so a page learns of a change within moments
 * without a request a second. A version newer than the state's own (the API restarted since the
 * page last asked) is answered at once, so the page starts over from the new one.
 *
 * Bounded: each account may hold `OPERATIONS_WAITING_PER_ACCOUNT` polls waiting at once (a 429
 * past that, nothing held) and make `OPERATIONS_REQUESTS_PER_MINUTE` requests a minute; on
 * shutdown every waiting poll is answered at once, so none holds the close.
 *
 * Not a sign of a viewer about: the cameras are not woken for it (decision 0074), since an
 * operator watching the list watches no video.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import type { LoginTokens } from '../auth/login-token';
import { signedInViewer } from '../auth/signed-in-viewer';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import { countForAccount, type RateLimitRule, type RateLimiter } from '../http/rate-limit';
import type { ZodTypeProvider } from '../http/zod-schema';
import { errorResponses } from '../routes/api-schemas';
import { OperationsStateStore, type OperationsState } from './operations-state';

/** How long a poll waits for a change before it answers the same snapshot. */
export const OPERATIONS_LONG_POLL_MS = 20_000;
/** Polls one account may hold waiting at once: a few pages open, not a loop that opens more. */
export const OPERATIONS_WAITING_PER_ACCOUNT = 4;
/**
 * Requests per account a minute: a page asks once per change, at most one a second (the page's
 * own spacing), with room for a few pages and their reloads.
 */
export const OPERATIONS_REQUESTS_PER_MINUTE = 240;

const VERSION = /^\d{1,15}$/;

export const operationsQuery = z.strictObject({
  after: z
    .string({ error: 'must be one version: a whole number from an earlier answer' })
    .regex(VERSION, 'must be a version: a whole number from an earlier answer')
    .transform(Number)
    .optional(),
});

export const operationsResponse = z.object({
  version: z.number().int(),
  aircraft: z.array(
    z.object({
      aircraft: z.string(),
      onAir: z.boolean(),
      since: z.string().nullable(),
      bitrate: z.number().nullable(),
      viewers: z.number().int(),
    }),
  ),
  events: z.array(
    z.object({ id: z.string(), time: z.string(), aircraft: z.string(), name: z.string() }),
  ),
});

/** The 404 with Amazon IVS (docs/product.md#operations). */
export const OPERATIONS_UNAVAILABLE =
  'Operations are not available with Amazon IVS: see its CloudWatch metrics and EventBridge events';

export function registerOperationsRoute(
  app: FastifyInstance,
  deps: {
    store: UserStore;
    loginTokens: LoginTokens;
    /** None: every aircraft off air since a time unknown, no events (tests of other routes). */
    operations: OperationsState | undefined;
    /**
     * False with Amazon IVS: nothing here follows its stages (their figures and events are
     * CloudWatch's and EventBridge's), so the route answers 404 rather than a list of aircraft
     * all off air.
     */
    available: boolean;
    rateLimiter: RateLimiter;
    /** Tests shorten it. */
    longPollMs?: number;
  },
): void {
  const operations = deps.operations ?? new OperationsStateStore(STREAM_IDS);
  const longPollMs = deps.longPollMs ?? OPERATIONS_LONG_POLL_MS;
  const rule: RateLimitRule = {
    name: 'operations-user',
    max: OPERATIONS_REQUESTS_PER_MINUTE,
    windowMs: 60_000,
  };
  /** The polls waiting now, by account: their count, and their aborts for a shutdown. */
  const waiting = new Map<string, Set<AbortController>>();
  app.addHook('preClose', async () => {
    for (const polls of waiting.values()) for (const poll of polls) poll.abort();
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/operations',
    {
      schema: {
        querystring: operationsQuery,
        response: { 200: operationsResponse, ...errorResponses },
      },
      // Who asks comes first: an anonymous caller learns nothing about the query's rules.
      onRequest: async (request, reply) => {
        reply.header('cache-control', 'private, no-store');
        // The cameras stay asleep for an operator's list (no `viewerPresent`).
        const user = await signedInViewer(request, {
          store: deps.store,
          loginTokens: deps.loginTokens,
        });
        request.user = user;
        await countForAccount(deps.rateLimiter, rule, request, user.id, 'operations requests');
      },
    },
    async (request, reply) => {
      if (!deps.available) throw new HttpError(404, OPERATIONS_UNAVAILABLE);
      const after = request.query.after;
      const current = operations.snapshot();
      if (after === undefined || after !== current.version) return current;
      const userId = request.user!.id;
      const polls = waiting.get(userId) ?? new Set<AbortController>();
      if (polls.size >= OPERATIONS_WAITING_PER_ACCOUNT) {
        throw new HttpError(
          429,
          `Too many operations pages are waiting for this account (at most ${OPERATIONS_WAITING_PER_ACCOUNT}); close one and try again`,
          { 'retry-after': String(Math.ceil(longPollMs / 1000)) },
        );
      }
      const poll = new AbortController();
      polls.add(poll);
      waiting.set(userId, polls);
      const timer = setTimeout(() => poll.abort(), longPollMs);
      // A client that goes away frees its place at once (the response closes before it is sent).
      const gone = () => poll.abort();
      reply.raw.once('close', gone);
      try {
        await operations.changed(after, poll.signal);
      } finally {
        clearTimeout(timer);
        reply.raw.off('close', gone);
        polls.delete(poll);
        if (polls.size === 0) waiting.delete(userId);
      }
      return operations.snapshot();
    },
  );
}
