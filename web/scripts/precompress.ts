/**
 * The build's compressed copies (docs/decisions/0104-the-web-app-compressed.md): beside each text
 * file in web/dist worth it, its brotli (`.br`, quality 11) and gzip (`.gz`, level 9) forms,
 * which the API sends to a browser that accepts them (`preCompressed`, server/src/routes/web-app.ts).
 * Made once, at the build, at the highest levels: a server compressing each response would spend
 * a core's time per visitor on the same bytes, at lower levels.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** The files compressed: text the browser fetches (source maps are never served). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/i;
/** Smaller files are sent as they are: a compressed copy saves less than its headers cost. */
export const MIN_COMPRESS_BYTES = 1_024;

/** Writes the compressed copies of every compressible file under `dir`; returns how many. */
export function precompressDir(dir: string): number {
  let count = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      count += precompressDir(path);
      continue;
    }
    if (!COMPRESSIBLE.test(name)) continue;
    const body = readFileSync(path);
    if (body.length < MIN_COMPRESS_BYTES) continue;
    writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
    );
    count += 1;
  }
  return count;
}

/** Vite's plugin: the compressed copies, once the build has written web/dist. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'tailcam-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      precompressDir(outDir);
    },
  };
}
