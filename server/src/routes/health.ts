import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UserStore } from '../db/user-store';
import { HttpError } from '../http/errors';
import type { ZodTypeProvider } from '../http/zod-schema';
import { errorResponse } from './api-schemas';

const READY_TIMEOUT_MS = 2_000;

export function registerHealthRoutes(app: FastifyInstance, deps: { store: UserStore }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    '/api/health',
    { schema: { response: { 200: z.object({ status: z.literal('ok') }) } } },
    async () => ({ status: 'ok' as const }),
  );
  typed.get(
    '/api/ready',
    {
      schema: {
        response: { 200: z.object({ status: z.literal('ready') }), 503: errorResponse },
      },
    },
    async (request) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          deps.store.ping(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), READY_TIMEOUT_MS);
          }),
        ]);
      } catch (error) {
        request.log.error({ err: error }, 'readiness check: database unavailable');
        throw new HttpError(503, 'Database unavailable');
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ready' as const };
    },
  );
}
