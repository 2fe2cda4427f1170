/** Request and response shapes of the JSON API, including the error shape. */
import { z } from 'zod';

const noNul = (value: string) => !value.includes('\u0000');

export const errorResponse = z.object({ error: z.string() });

export const loginBody = z.object({
  username: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(256, 'is too long')
    .refine(noNul, 'must not contain NUL characters'),
  password: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(1024, 'is too long')
    .refine(noNul, 'must not contain NUL characters'),
});

export const tokenBody = z.object({
  stageId: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(64, 'is too long')
    .refine(noNul, 'must not contain NUL characters'),
  clientId: z.uuid({ error: 'must be a UUID' }),
});

export const tokenResponse = z.object({ token: z.string() });

/** Every JSON error status the API answers with; all share one shape. */
export const errorResponses = {
  400: errorResponse,
  401: errorResponse,
  404: errorResponse,
  413: errorResponse,
  415: errorResponse,
  429: errorResponse,
  500: errorResponse,
  502: errorResponse,
  503: errorResponse,
} as const;
