// Makes sure Debian's Chromium is there for the browser tests: installs it with apt-get when it
// is missing and we are root on Debian (as in CI); otherwise says loudly that the browser tests
// cannot run and how to get it. Exits 0 when Chromium is available, 3 when it is not.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
const found = () => candidates.find((path) => path && existsSync(path));

if (found()) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (isRoot && hasApt) {
  console.log('[tailcam] installing Debian Chromium for the browser tests (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install =
    update.status === 0 &&
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-dejavu-core'], {
      stdio: 'inherit',
      env,
    });
  if (install && install.status === 0 && found()) process.exit(0);
}

console.error(`
################################################################################
# SKIPPED: browser (end-to-end) tests. Chromium was not found and could not be
# installed here. On Debian/Ubuntu: sudo apt-get install chromium
# or point CHROMIUM_PATH at a Chromium or Chrome binary, then run npm test again.
################################################################################
`);
process.exit(3);
