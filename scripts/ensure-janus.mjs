// Makes sure what `npm run bench -- --peer=janus` compares us with is there: Debian's Janus
// (the gateway, its streaming plugin and its HTTP/WebSocket transports), janus.js (the browser
// library a Janus page uses) and the GStreamer pieces that feed it (gst-launch-1.0, rawvideoparse,
// vp8enc, rtpvp8pay, udpsink). Installs them with apt-get when they are missing and we are root
// on Debian; otherwise says loudly that the Janus comparison is skipped and how to get it.
// Exits 0 when everything can run, 3 when it cannot.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const PACKAGES = [
  'janus',
  'libjs-janus-gateway',
  'gstreamer1.0-tools',
  'gstreamer1.0-plugins-base',
  'gstreamer1.0-plugins-good',
];
const APT_TIMEOUT_MS = 10 * 60_000;
const JANUS_BINARY = process.env.JANUS_PATH ?? '/usr/bin/janus';
const JANUS_JS = '/usr/share/javascript/janus-gateway/janus.js';
const GST_LAUNCH = '/usr/bin/gst-launch-1.0';
// rawvideoparse is in libgstrawparse (plugins-base); vp8enc in libgstvpx, rtpvp8pay in libgstrtp,
// udpsink in libgstudp (plugins-good).
const GST_PLUGINS = ['libgstrawparse.so', 'libgstvpx.so', 'libgstrtp.so', 'libgstudp.so'];
const JANUS_PLUGINS = ['plugins/libjanus_streaming.so', 'transports/libjanus_websockets.so'];

function libraryDirectories(suffix) {
  return ['/usr/lib', '/usr/lib64', '/usr/local/lib'].flatMap((dir) => {
    if (!existsSync(dir)) return [];
    const multiarch = readdirSync(dir).map((entry) => `${dir}/${entry}/${suffix}`);
    return [`${dir}/${suffix}`, ...multiarch].filter((directory) => existsSync(directory));
  });
}

const found = (suffix, file) =>
  libraryDirectories(suffix).some((directory) => existsSync(`${directory}/${file}`));

function missing() {
  return [
    ...(existsSync(JANUS_BINARY) ? [] : ['the janus binary']),
    ...JANUS_PLUGINS.filter((plugin) => !found('janus', plugin)).map((p) => `Janus's ${p}`),
    ...(existsSync(JANUS_JS) ? [] : ['janus.js (libjs-janus-gateway)']),
    ...(existsSync(GST_LAUNCH) ? [] : ['gst-launch-1.0']),
    ...GST_PLUGINS.filter((plugin) => !found('gstreamer-1.0', plugin)).map(
      (plugin) => `GStreamer's ${plugin}`,
    ),
  ];
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (missing().length > 0 && isRoot && hasApt) {
  console.log('[tailcam] installing Janus, janus.js and GStreamer for --peer=janus (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    spawnSync('apt-get', args, { stdio: 'inherit', env, timeout: APT_TIMEOUT_MS }).status === 0;
  const install = () => apt(['install', '-y', '-qq', '--no-install-recommends', ...PACKAGES]);
  // The package lists of a fresh image may be stale or empty: refresh them only when needed.
  if (!install() && apt(['update', '-qq'])) install();
}

const stillMissing = missing();
if (stillMissing.length === 0) process.exit(0);

console.error(`
################################################################################
# SKIPPED: the side-by-side bench against Janus (npm run bench -- --peer=janus).
# Missing: ${stillMissing.join(', ')}.
# On Debian 12: sudo apt-get install janus libjs-janus-gateway \\
#   gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
# then run npm run bench -- --peer=janus again. JANUS_PATH may point at a janus
# binary built elsewhere (its plugins are looked for under <libdir>/janus/).
################################################################################
`);
process.exit(3);
