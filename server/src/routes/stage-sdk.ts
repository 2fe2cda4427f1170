/**
 * `/sdk/stage.js`, the one script the web app loads for its stage SDK
 * (docs/product.md#stage-sdk): the real Amazon IVS Web Broadcast SDK with `ivs` (or a redirect
 * to IVS_SDK_URL), the local stage's bundle with `local`. Served with charset=utf-8: the IVS SDK
 * fails to parse without it.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { FastifyInstance } from 'fastify';

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
    let file;
    try {
      file = await stat(options.sdkFile);
    } catch {
      file = undefined;
    }
    if (file === undefined || !file.isFile()) {
      const shown = relative(options.repoRoot, options.sdkFile) || options.sdkFile;
      const missing =
        options.stageProvider === 'local'
          ? `The local stage SDK is not built: ${shown} is missing. Run \`npm run build\`, then reload.`
          : `The Amazon IVS SDK file is missing: ${shown}. Run \`npm install\`, then reload.`;
      request.log.error({ sdkFile: options.sdkFile }, 'stage SDK file missing');
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
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.header('content-length', file.size).send(createReadStream(options.sdkFile));
  });
}
