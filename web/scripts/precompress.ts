/**
 * The build's compressed forms (docs/decisions/0104-the-web-app-compressed.md): beside each text
 * file in web/dist worth it, its brotli (`.br`) and gzip (`.gz`) forms (@tailcam/protocol's recipe),
 * which the API sends to a browser that accepts them (`preCompressed`, server/src/routes/web-app.ts).
 * Made once, at the build, at the highest levels: a server compressing each response would spend
 * a core's time per visitor on the same bytes, at lower levels.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
// By path, not by the package's name: Vite loads its config (and this plugin) with Node, which
// runs no TypeScript from node_modules; by path it is bundled with the config.
import { compressedForms, MIN_COMPRESS_BYTES } from '../../protocol/src/compressed-forms';
import type { Plugin } from 'vite';

export { MIN_COMPRESS_BYTES };

/** The files compressed: text the browser fetches (source maps are never served). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/i;

/** Writes the compressed forms of every compressible file under `dir`, all at once. */
export async function precompressDir(dir: string): Promise<void> {
  const names = await readdir(dir, { recursive: true, encoding: 'utf8' });
  await Promise.all(
    names
      .filter((name) => COMPRESSIBLE.test(name))
      .map(async (name) => {
        const path = join(dir, name);
        const body = await readFile(path);
        if (body.length < MIN_COMPRESS_BYTES) return;
        const forms = await compressedForms(body);
        await Promise.all([writeFile(`${path}.br`, forms.br), writeFile(`${path}.gz`, forms.gzip)]);
      }),
  );
}

/** Vite's plugin: the compressed forms, once the build has written web/dist. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'tailcam-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await precompressDir(outDir);
    },
  };
}
