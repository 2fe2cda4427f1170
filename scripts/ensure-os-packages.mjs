// The first step of `npm test`: every Debian package the tests use, installed at once (one
// `apt-get update`, one `apt-get install`) when some are missing and we are root on Debian, rather
// than one refresh and install per step. Each step still checks what it needs itself and says
// loudly what it skips (ensure-chromium.mjs, ensure-whip-client.mjs, with-postgres.mjs), so this
// step never fails the run: without root or apt it only says what is missing.
// With `--run` (`npm start`): only what the product itself uses (ffmpeg, for /home's
// thumbnails); without it Tailcam runs and the cards keep their placeholders.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** What each step of the tests needs, by Debian package name. */
const TEST_PACKAGES = {
  'browser tests': ['chromium', 'fonts-dejavu-core'],
  // e2e/firefox-*.spec.ts drive Debian's Firefox ESR over WebDriver BiDi (harness/src/firefox.ts).
  'Firefox tests': ['firefox-esr'],
  'real WHIP encoder tests': [
    'simple-whip-client',
    'gstreamer1.0-plugins-good',
    'gstreamer1.0-plugins-ugly',
    'gcc',
    'libc6-dev',
    // scripts/h264-sei-encoder.py: the GStreamer encoder with flight data, a pad probe in Python.
    'python3-gi',
    'gir1.2-gstreamer-1.0',
  ],
  'PostgreSQL store tests': ['postgresql'],
  // The thumbnail process decodes a key frame with ffmpeg (docs/decisions/0070-thumbnails.md).
  'thumbnail tests': ['ffmpeg'],
  // harness/src/lab: namespaces and links (iproute2: ip, tc), NAT, loss and blocked UDP
  // (iptables; nftables' nft to read the rules iptables-nft writes), RTT (ping), the delayer
  // (python3), and the TURN server the UDP-blocked cases relay through (coturn).
  'network lab tests': ['iproute2', 'iptables', 'nftables', 'iputils-ping', 'python3', 'coturn'],
  // e2e/prometheus.spec.ts: a real Prometheus scrapes the metrics endpoint and is queried.
  'Prometheus test': ['prometheus'],
};

/** What the running product uses: the thumbnail process's decoder. */
const RUN_PACKAGES = { 'live thumbnails': ['ffmpeg'] };

const forRun = process.argv.includes('--run');
const wanted = forRun ? RUN_PACKAGES : TEST_PACKAGES;
const purpose = forRun ? 'Tailcam uses' : 'the tests use';
const without = forRun
  ? 'without them /home shows placeholders instead of thumbnails'
  : 'the steps that need them will say so';

const APT_TIMEOUT_MS = 10 * 60_000;

function isInstalled(name) {
  const query = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return query.status === 0 && query.stdout.includes('install ok installed');
}

const hasDpkg = existsSync('/usr/bin/dpkg-query');
if (!hasDpkg) {
  console.log(
    forRun
      ? '[tailcam] not Debian: live thumbnails need ffmpeg on the PATH (or FFMPEG_PATH).'
      : '[tailcam] not Debian: each test step checks for what it needs itself.',
  );
  process.exit(0);
}
const missing = Object.values(wanted)
  .flat()
  .filter((name) => !isInstalled(name));
if (missing.length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot || !existsSync('/usr/bin/apt-get')) {
  console.log(`[tailcam] missing Debian packages (${without}): ${missing.join(' ')}
[tailcam] to install them: sudo apt-get install ${missing.join(' ')}`);
  process.exit(0);
}

console.log(`[tailcam] installing the Debian packages ${purpose}: ${missing.join(' ')}`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const apt = (args) =>
  spawnSync('apt-get', args, { stdio: 'inherit', env, timeout: APT_TIMEOUT_MS }).status === 0;
const install = () => apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
// The package lists of a fresh image may be stale or empty: refresh them only when needed.
if (!install() && !(apt(['update', '-qq']) && install())) {
  console.log(`[tailcam] apt-get could not install them all; ${without}.`);
}
