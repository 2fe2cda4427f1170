/**
 * The one way the web app calls its API: a JSON body out, the status checked, the answer parsed
 * with a schema. zod's mini build keeps the browser bundle small (about 4 KB gzip for what the
 * app uses; decision 0002).
 */
import * as z from 'zod/mini';
import { apiUrl } from './api-url';

/** A string with something in it besides spaces, as the API's tokens and messages are. */
export const nonBlankString = z.string().check(z.refine((text) => text.trim() !== ''));

/** Every error the API answers is `{error: '...'}`. */
const errorBody = z.object({ error: nonBlankString });

/** A call that got no usable answer: no answer at all, a status that is not OK, or a bad body. */
export class ApiError extends Error {
  constructor(
    message: string,
    /** The HTTP status; undefined when the server could not be reached. */
    readonly status: number | undefined,
    /** The `error` text of a refusal's body, when the server sent one. */
    readonly serverMessage: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ApiError';
  }
}

export interface PostJsonOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * POSTs `body` as JSON to an API path and returns the answer parsed by `responseSchema`. Throws an
 * `ApiError` for every failure, except a call cancelled through `signal`, which rejects with the
 * signal's reason: a cancelled call is nobody's error to show.
 */
export async function postJson<Schema extends z.ZodMiniType>(
  path: `/api/${string}`,
  body: unknown,
  responseSchema: Schema,
  { headers, signal }: PostJsonOptions = {},
): Promise<z.infer<Schema>> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    signal?.throwIfAborted();
    throw new ApiError(`${path} could not be reached`, undefined, undefined, { cause: error });
  }

  const answer = await readJson(response);
  signal?.throwIfAborted();
  if (!response.ok) {
    const refusal = errorBody.safeParse(answer);
    throw new ApiError(
      `${path} answered ${response.status}`,
      response.status,
      refusal.success ? refusal.data.error : undefined,
    );
  }
  const parsed = responseSchema.safeParse(answer);
  if (!parsed.success) {
    throw new ApiError(`${path} answered an unexpected body`, response.status, undefined, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** The body as JSON, or undefined when it is not JSON (a proxy's HTML error page, say). */
async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}
