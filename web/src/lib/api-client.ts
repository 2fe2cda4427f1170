/**
 * The one way the web app calls its API: a JSON body out, the status checked, the answer read by
 * the caller's parser. The browser reads two one-field shapes, `{token}` and `{error}`, with
 * `textField`: no schema library in the first load (decision 0002, amended).
 */
import { apiUrl } from './api-url';

/**
 * The `key` field of a JSON object when it is a string with something in it besides spaces, as
 * the API's tokens and messages are; else undefined.
 */
export function textField(answer: unknown, key: string): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const value: unknown = (answer as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

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
 * POSTs `body` as JSON to an API path and returns the answer as `read` parses it (undefined: not
 * the answer expected). Throws an `ApiError` for every failure, except a call cancelled through
 * `signal`, which rejects with the signal's reason: a cancelled call is nobody's error to show.
 */
export async function postJson<T>(
  path: `/api/${string}`,
  body: unknown,
  read: (answer: unknown) => T | undefined,
  { headers, signal }: PostJsonOptions = {},
): Promise<T> {
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
    // Every error the API answers is `{error: '...'}`.
    throw new ApiError(
      `${path} answered ${response.status}`,
      response.status,
      textField(answer, 'error'),
    );
  }
  const parsed = read(answer);
  if (parsed === undefined) {
    throw new ApiError(`${path} answered an unexpected body`, response.status, undefined);
  }
  return parsed;
}

/** The body as JSON, or undefined when it is not JSON (a proxy's HTML error page, say). */
async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}
