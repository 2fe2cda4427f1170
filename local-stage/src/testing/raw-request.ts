/**
 * An HTTP request with exactly the headers given (fetch would add its own: Accept, User-Agent,
 * Sec-Fetch-…), on a connection of its own (no keep-alive: a door may close a connection after
 * refusing a body, and a reused one would then fail on the client's side, not the server's).
 */
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: hostname, port, path, method, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** rawRequest bound to a stage whose URL is known only once it has started (`() => running.url`). */
export function rawSender(baseUrl: () => string) {
  return (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string | Buffer,
  ): Promise<RawAnswer> => rawRequest(baseUrl(), method, path, headers, body);
}
