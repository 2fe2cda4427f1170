/**
 * The compressed forms of a file the browser fetches, one recipe for the build's (the web app,
 * web/scripts/precompress.ts) and the API's (the stage SDK, server/src/routes/stage-sdk.ts):
 * brotli at its highest quality and gzip at level 9, each made once per version of the file
 * (docs/decisions/0104-the-web-app-compressed.md). Node only.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** Smaller files are sent as they are: a compressed form saves less than its headers cost. */
export const MIN_COMPRESS_BYTES = 1_024;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export interface CompressedForms {
  br: Buffer;
  gzip: Buffer;
}

/** `body`'s brotli and gzip forms, made on libuv's threads (the event loop waits for neither). */
export async function compressedForms(body: Buffer): Promise<CompressedForms> {
  const [br, gzipped] = await Promise.all([
    brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzipAsync(body, { level: 9 }),
  ]);
  return { br, gzip: gzipped };
}
