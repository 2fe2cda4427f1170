/**
 * A JSON request to one of our own loopback services (the local stage's control routes), over
 * `node:http` rather than `fetch`. Node's `fetch` (undici) keeps a 499 ms timer ticking for as
 * long as any of its requests or kept-alive connections has a timeout armed, so a long poll held
 * by the stage woke an idle process twice a second (decision 0078); `node:http` arms one timer per
 * request, which fires only if the answer is late.
 */
import { request as httpRequest } from 'node:http';

export interface LoopbackJsonRequest {
  method?: 'GET' | 'PUT' | 'POST';
  body?: unknown;
  signal?: AbortSignal;
  /** Sent as `Authorization: Bearer …` (the stage's control routes need one). */
  bearer?: string;
  /** The whole answer must have come by then. */
  timeoutMs: number;
}

/** Resolves with the parsed answer of a 2xx; rejects on any other status, a timeout or abort. */
export function loopbackJson(url: string, options: LoopbackJsonRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const request = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers: {
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          ...(options.bearer === undefined ? {} : { authorization: `Bearer ${options.bearer}` }),
        },
        signal: options.signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) {
            return reject(new Error(`the local stage answered ${String(status)}`));
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer in ${String(options.timeoutMs)} ms`));
    }, options.timeoutMs);
    timer.unref();
    request.once('close', () => clearTimeout(timer));
    request.on('error', reject);
    request.end(body);
  });
}
