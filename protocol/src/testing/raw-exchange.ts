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
