/**
 * The forwarding process loads no native media code (docs/decisions/0054): what the stage's entry
 * imports, followed through every file it bundles, names no native package. libwebrtc and the
 * canvas are the camera process's alone.
 */
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const NATIVE = /@roamhq\/wrtc|@napi-rs\/canvas|\.node$/;

async function externalImports(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const metafile: Metafile = result.metafile;
  return Object.values(metafile.outputs).flatMap((output) =>
    output.imports.filter((entry) => entry.external).map((entry) => entry.path),
  );
}

describe('the processes of the local stage', () => {
  it('the stage (the forwarding process) imports no native media package', async () => {
    const imports = await externalImports('./main.ts');
    expect(imports).toContain('werift');
    expect(imports.filter((path) => NATIVE.test(path))).toEqual([]);
  });

  it('the camera process is where libwebrtc and the canvas are', async () => {
    const imports = await externalImports('./cameras-main.ts');
    expect(imports).toEqual(expect.arrayContaining(['@roamhq/wrtc', '@napi-rs/canvas']));
  });
});
