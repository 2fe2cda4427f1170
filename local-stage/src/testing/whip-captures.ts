/**
 * What simple-whip-client (GStreamer) sent a stage, captured byte for byte
 * (fixtures/whip-gstreamer/): each file is `### METHOD PATH`, the headers as JSON, a blank line,
 * the body.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export interface CapturedRequest {
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

export function capturedRequest(name: string): CapturedRequest {
  const file = readFileSync(new URL(`fixtures/whip-gstreamer/${name}`, import.meta.url));
  const text = file.toString('latin1');
  const requestLine = /^### (\w+) \S+\n/.exec(text);
  const headersEnd = text.indexOf('\n}\n', requestLine?.[0].length ?? 0);
  if (!requestLine?.[1] || headersEnd < 0) throw new Error(`${name} is not a capture`);
  const headers = z
    .record(z.string(), z.string())
    .parse(JSON.parse(text.slice(requestLine[0].length, headersEnd + 2)));
  // The body is what Content-Length says (the file ends with a newline the encoder did not send).
  const bodyStart = headersEnd + '\n}\n\n'.length;
  const length = Number(headers['content-length'] ?? 0);
  return {
    method: requestLine[1],
    headers,
    body: file.subarray(bodyStart, bodyStart + length),
  };
}

/** The offer GStreamer's client POSTed (its ICE never completes against another stage). */
export function gstreamerOffer(): string {
  return capturedRequest('1-post-offer-trickle.txt').body.toString('latin1');
}
