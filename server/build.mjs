// Bundles the server and its CLIs (users, ivs, publish-token, subscribe-token, doctor) into dist/: workspace code (@tailcam/*) is inlined,
// npm dependencies stay external and are resolved from node_modules at run time.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const { dependencies } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'));
const external = Object.keys(dependencies).filter((name) => !name.startsWith('@tailcam/'));

await build({
  absWorkingDir: here,
  entryPoints: {
    server: 'src/server.ts',
    users: 'src/cli/users.ts',
    ivs: 'src/cli/ivs.ts',
    'publish-token': 'src/cli/publish-token.ts',
    'subscribe-token': 'src/cli/subscribe-token.ts',
    doctor: 'src/cli/doctor.ts',
    // A worker thread's own entry: remux-stream.ts starts dist/remux-worker.js beside the server.
    'remux-worker': 'src/recordings/remux-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
});
console.log(
  `[server] built dist/server.js, users.js, ivs.js, publish-token.js, subscribe-token.js and doctor.js (external: ${external.join(', ')})`,
);
