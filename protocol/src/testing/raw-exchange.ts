/**
 * HTTP over a raw TCP socket, for the API's and the local stage's tests of what `inject` and
 * `fetch` cannot send or cannot show: bodies that never end, malformed requests, oversized headers,
 * and when the server closes the socket.
 */
import { connect, type Socket } from 'node:net';

export interface RawSocketAnswer {
  /** 0 when nothing that looks like an HTTP answer arrived. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the socket before `waitMs` ran out. */
  closed: boolean;
  /** From the first byte written to the close (or to giving up). */
  elapsedMs: number;
}

function parseAnswer(text: string): Pick<RawSocketAnswer, 'status' | 'headers' | 'body'> {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: text };
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: text.slice(end + 4),
  };
}

/**
 * Connects, lets `talk` write (it may keep writing later), and collects what the server sends
 * until it closes the socket or `waitMs` passes.
 */
export function rawExchange(
  port: number,
  talk: (socket: Socket) => void,
  waitMs = 5_000,
): Promise<RawSocketAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let startedAt = 0;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        ...parseAnswer(Buffer.concat(chunks).toString('utf8')),
        closed,
        elapsedMs: Date.now() - startedAt,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      startedAt = Date.now();
      talk(socket);
    });
  });
}

/**
 * The three ways a request never finishes arriving, each named: a body shorter than its
 * Content-Length, a chunked body with no last chunk, and headers that never end. `head(extra)`
 * writes a request line and headers for a body, with `extra` header lines; `body` is the start of
 * one; `getPath` is a path to GET.
 */
export function unfinishedRequests(
  head: (extra: string) => string,
  body: string,
  getPath: string,
): [name: string, request: string][] {
  return [
    ['a body shorter than its Content-Length', head('Content-Length: 100\r\n') + body],
    [
      'a chunked body with no last chunk',
      head('Transfer-Encoding: chunked\r\n') + `${body.length.toString(16)}\r\n${body}\r\n`,
    ],
    ['headers that never end', `GET ${getPath} HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n`],
  ];
}

/**
 * What a test checks of the answer to such a request: closed, once the limit had passed and
 * before twice the limit (Node checks every `limitMs` at most) plus slack, with a JSON 408.
 */
export function timedOutAnswer(answer: RawSocketAnswer, limitMs: number) {
  return {
    closed: answer.closed,
    afterTheLimit: answer.elapsedMs >= limitMs - 50,
    beforeTwiceTheLimit: answer.elapsedMs < 2 * limitMs + 1_000,
    status: answer.status,
    json: /^application\/json/.test(answer.headers['content-type'] ?? ''),
    body: answer.body,
  };
}

/** What `timedOutAnswer` gives for a request answered as it should be. */
export const TIMED_OUT = {
  closed: true,
  afterTheLimit: true,
  beforeTwiceTheLimit: true,
  status: 408,
  json: true,
  body: JSON.stringify({ error: 'Request timed out' }),
};
