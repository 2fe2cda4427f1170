/**
 * `/sdk/stage.js`, the one script the web app loads for its stage SDK
 * (docs/product.md#stage-sdk): the real Amazon IVS Web Broadcast SDK with `ivs` (or a redirect
 * to IVS_SDK_URL), the local stage's bundle with `local`. Served with charset=utf-8: the IVS SDK
 * fails to parse without it. With `local`, `/sdk/in-band-worker.js` too: the local SDK's in-band
 * message reader, a worker the SDK starts from beside its own script (decision 0094), so that the
 * CSP's `worker-src 'self'` holds. Each is sent brotli- or gzip-compressed to a browser that
 * takes it, compressed once per version of the file, in the background
 * (docs/decisions/0104-the-web-app-compressed.md).
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { negotiate } from '@fastify/accept-negotiator';
import {
  compressedForms,
  MIN_COMPRESS_BYTES,
  type CompressedForms,
} from '@tailcam/protocol/compressed-forms';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The local SDK's worker, built beside its bundle. */
export const IN_BAND_WORKER = 'in-band-worker.js';

export function registerStageSdkRoute(
  app: FastifyInstance,
  options: {
    stageProvider: 'local' | 'ivs';
    sdkFile: string;
    sdkUrl?: string | undefined;
    repoRoot: string;
  },
): void {
  app.get('/sdk/stage.js', async (request, reply) => {
    if (options.stageProvider === 'ivs' && options.sdkUrl !== undefined) {
      return reply.header('cache-control', 'no-cache').redirect(options.sdkUrl, 302);
    }
    return sendScript(request, reply, options.sdkFile, options);
  });
  if (options.stageProvider === 'local') {
    const worker = join(dirname(options.sdkFile), IN_BAND_WORKER);
    app.get(`/sdk/${IN_BAND_WORKER}`, (request, reply) =>
      sendScript(request, reply, worker, options),
    );
  }
}

async function sendScript(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  options: { stageProvider: 'local' | 'ivs'; repoRoot: string },
) {
  let file;
  try {
    file = await stat(path);
  } catch {
    file = undefined;
  }
  if (file === undefined || !file.isFile()) {
    const shown = relative(options.repoRoot, path) || path;
    const missing =
      options.stageProvider === 'local'
        ? `The local stage SDK is not built: ${shown} is missing. Run \`npm run build\`, then reload.`
        : `The Amazon IVS SDK file is missing: ${shown}. Run \`npm install\`, then reload.`;
    request.log.error({ sdkFile: path }, 'stage SDK file missing');
    return reply
      .code(503)
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send(`${missing}\n`);
  }
  const etag = `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
  reply
    .header('cache-control', 'no-cache')
    .header('etag', etag)
    .type('application/javascript; charset=utf-8');
  // One weak etag for every form: the same script, whichever encoding carries it.
  reply.header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const encoding = acceptedEncoding(request.headers['accept-encoding']);
  const compressed =
    encoding && file.size >= MIN_COMPRESS_BYTES ? compressedScript(path, etag) : undefined;
  if (encoding && compressed) {
    const body = compressed[encoding];
    return reply
      .header('content-encoding', encoding)
      .header('content-length', body.length)
      .send(body);
  }
  return reply.header('content-length', file.size).send(createReadStream(path));
}

/** The compressed forms of each script, by path, for one version of it (its etag). */
const compressedScripts = new Map<string, { etag: string; forms?: CompressedForms }>();

/**
 * The compressed forms of `path` at version `etag`, once they are made; until then undefined,
 * and they are begun (the file itself is sent meanwhile: no request waits for a compression).
 */
function compressedScript(path: string, etag: string): CompressedForms | undefined {
  const known = compressedScripts.get(path);
  if (known?.etag === etag) return known.forms;
  const entry: { etag: string; forms?: CompressedForms } = { etag };
  compressedScripts.set(path, entry);
  readFile(path)
    .then(compressedForms)
    .then((forms) => (entry.forms = forms))
    .catch(() => compressedScripts.delete(path));
  return undefined;
}

/** The encoding to send for an Accept-Encoding header: brotli, else gzip, else none. */
export function acceptedEncoding(header: string | undefined): 'br' | 'gzip' | undefined {
  // Content codings are case-insensitive (RFC 9110 §8.4.1); the negotiator compares them as sent.
  return negotiate<'br' | 'gzip'>((header ?? '').toLowerCase(), ['br', 'gzip']) ?? undefined;
}
