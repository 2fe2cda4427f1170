// Builds the local stage: the stage process (dist/stage.js, Node ESM, npm packages external),
// the camera process (dist/cameras.js, likewise), the thumbnail process (dist/thumbnails.js,
// likewise), the recorder (dist/recorder.js, likewise), the browser SDK (dist/stage-sdk.js, an IIFE
// defining window.IVSBroadcastClient, and its in-band message worker, dist/in-band-worker.js) and the time strip decoder for browser tests
// (dist/time-strip.js, window.TailcamTimeStrip).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = JSON.parse(readFileSync(`${here}package.json`, 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@tailcam/'));

/** A process's entry (src/{source}.ts) bundled for Node, npm packages external, as dist/{name}.js. */
const nodeProcess = (source, name) =>
  build({
    entryPoints: [`${here}src/${source}.ts`],
    outfile: `${here}dist/${name}.js`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    sourcemap: true,
    logLevel: 'warning',
  });

await Promise.all([
  nodeProcess('main', 'stage'),
  nodeProcess('cameras-main', 'cameras'),
  nodeProcess('thumbnails-main', 'thumbnails'),
  nodeProcess('recorder-main', 'recorder'),
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
  // The SDK's in-band message reader, an RTCRtpScriptTransform's worker, served beside it.
  build({
    entryPoints: [`${here}src/sdk/in-band-worker.ts`],
    outfile: `${here}dist/in-band-worker.js`,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome100', 'firefox100', 'safari15'],
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
