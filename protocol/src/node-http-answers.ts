/**
 * What the API and the local stage answer where Node's HTTP server would otherwise answer in its
 * own shape, or hold the socket: a request the parser refuses, and a request not wholly received
 * in time. Both processes use the same limit (`REQUEST_TIMEOUT_MS`) and the same `{error}` JSON;
 * each adds its own headers.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export const REQUEST_TIMED_OUT = 'Request timed out';
export const MALFORMED_REQUEST = 'Malformed request';
export const HEADERS_TOO_LARGE = 'Request headers are too large';

/** Time a client has to send a whole request, headers and body (`REQUEST_TIMEOUT_MS`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/**
 * Node's server options for the limit: a request (headers and body) not wholly received within
 * `requestTimeoutMs` is a clientError `ERR_HTTP_REQUEST_TIMEOUT`. Node checks for that every
 * connectionsCheckingInterval, and a headersTimeout over the limit would let headers take longer.
 */
export function requestTimeoutOptions(requestTimeoutMs: number): {
  requestTimeout: number;
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs),
  };
}

/** Node's clientError codes and what they are answered, by status. */
export function clientErrorAnswer(code: string): { status: number; error: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: REQUEST_TIMED_OUT };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: HEADERS_TOO_LARGE };
  return { status: 400, error: MALFORMED_REQUEST };
}

/** Node's own rule: an answer may be written only while no response has begun on the socket. */
function responseBegun(socket: Duplex): boolean {
  const response: unknown = Reflect.get(socket, '_httpMessage');
  return (
    typeof response === 'object' &&
    response !== null &&
    Reflect.get(response, 'headersSent') === true
  );
}

function rawAnswer(status: number, error: string, headers: Record<string, string>): string {
  const body = JSON.stringify({ error });
  const head = {
    ...headers,
    'cache-control': 'no-store',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * A server's 'clientError': answers it as `{error}` JSON with `headers` (unless the client is gone
 * or an answer has begun), then closes the socket. The status answered, or undefined for a client
 * that was gone.
 */
export function answerClientError(
  error: Error & { code?: string },
  socket: Duplex,
  headers: Record<string, string>,
): number | undefined {
  if (error.code === 'ECONNRESET' || socket.destroyed) {
    socket.destroy();
    return undefined;
  }
  const { status, error: message } = clientErrorAnswer(error.code ?? '');
  if (socket.writable && !responseBegun(socket)) socket.write(rawAnswer(status, message, headers));
  socket.destroy();
  return status;
}
