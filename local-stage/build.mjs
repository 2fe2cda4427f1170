// Builds the local stage: the stage process (dist/stage.js, Node ESM, npm packages external),
// the camera process (dist/cameras.js, likewise), the recorder (dist/recorder.js, likewise), the browser SDK (dist/stage-sdk.js, an IIFE
// defining window.IVSBroadcastClient) and the time strip decoder for browser tests
// (dist/time-strip.js, window.TailcamTimeStrip).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = JSON.parse(readFileSync(`${here}package.json`, 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@tailcam/'));

/** One of the stage's Node processes, its npm packages left to node_modules. */
const nodeProcess = (entry, outfile) =>
  build({
    entryPoints: [`${here}src/${entry}`],
    outfile: `${here}dist/${outfile}`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    sourcemap: true,
    logLevel: 'warning',
  });

await Promise.all([
  nodeProcess('main.ts', 'stage.js'),
  nodeProcess('cameras-main.ts', 'cameras.js'),
  nodeProcess('recorder-main.ts', 'recorder.js'),
  build({
    entryPoints: [`${here}src/sdk/ivs-broadcast-client.ts`],
    outfile: `${here}dist/stage-sdk.js`,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome100', 'firefox100', 'safari15'],
    charset: 'utf8',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
  }),
  build({
    entryPoints: [`${here}src/sdk/time-strip-global.ts`],
    outfile: `${here}dist/time-strip.js`,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome100'],
    logLevel: 'warning',
  }),
]);
