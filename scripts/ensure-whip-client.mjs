// Makes sure Meetecho's simple-whip-client (Debian's `simple-whip-client`, binary `whip-client`)
// and the GStreamer encoders it is run with (vp8enc, x264enc), and GStreamer for Python (the
// flight-data encoder, scripts/h264-sei-encoder.py), are there for the tests that publish with a
// real encoder: installs them with apt-get when they are missing and we are root
// on Debian (as in CI); otherwise says loudly what those tests will skip and how to get them.
// Exits 0 when the client can run, 3 when it cannot.
//
// The tests run the client through the launcher this writes, CLIENT_LAUNCHER. Debian 12's
// whip-client is linked with libsoup 2.4, while its libnice (ICE) pulls in libsoup 3 through the
// UPnP port-mapping library (libgupnp-igd); the two libsoups abort when loaded in one process
// ("libsoup2 symbols detected"), so the packaged client dies as soon as it builds its pipeline.
// Where that is so, the launcher puts a no-op libgupnp-igd first on LD_LIBRARY_PATH (built here
// with the C compiler): libnice then runs without UPnP port mapping, which nothing on one machine
// needs, and everything else is the packaged client as an operator would run it.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const CACHE = `${root}node_modules/.cache/tailcam-whip-client`;
const CLIENT_LAUNCHER = `${CACHE}/whip-client`;
const PACKAGES = [
  'simple-whip-client',
  'gstreamer1.0-plugins-good',
  'gstreamer1.0-plugins-ugly',
  'python3-gi',
  'gir1.2-gstreamer-1.0',
];
const COMPILER_PACKAGES = ['gcc', 'libc6-dev'];
// vp8enc is in libgstvpx (plugins-good), x264enc in libgstx264 (plugins-ugly), the ICE agent in
// libgstnice.
const PLUGINS = ['libgstvpx.so', 'libgstx264.so', 'libgstnice.so'];
const APT_TIMEOUT_MS = 10 * 60_000;
// The symbols libnice takes from libgupnp-igd; with no IGD thread it does no port mapping.
const NO_UPNP_SOURCE = `/* A libgupnp-igd that finds no router: libnice then gathers without UPnP. */
void *gupnp_simple_igd_thread_new(void) { return 0; }
unsigned long gupnp_simple_igd_get_type(void) { return 20 << 2; /* G_TYPE_OBJECT */ }
void gupnp_simple_igd_add_port(void) {}
void gupnp_simple_igd_remove_port_local(void) {}
`;

const clientPath = () =>
  [process.env.WHIP_CLIENT_PATH, '/usr/bin/whip-client'].find((path) => path && existsSync(path));

function pluginDirectories() {
  const fromEnv = (process.env.GST_PLUGIN_PATH ?? '').split(':').filter(Boolean);
  const lib = ['/usr/lib', '/usr/lib64', '/usr/local/lib'].flatMap((dir) => {
    if (!existsSync(dir)) return [];
    const multiarch = readdirSync(dir).map((entry) => `${dir}/${entry}/gstreamer-1.0`);
    return [`${dir}/gstreamer-1.0`, ...multiarch];
  });
  return [...fromEnv, ...lib].filter((directory) => existsSync(directory));
}

const pluginPath = (plugin) =>
  pluginDirectories()
    .map((directory) => `${directory}/${plugin}`)
    .find((path) => existsSync(path));

const missingPlugins = () => PLUGINS.filter((plugin) => !pluginPath(plugin));

const linkedLibraries = (path) =>
  spawnSync('ldd', [path], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';

/** Whether the client's libsoup and the one its ICE plugin pulls in are different majors. */
function libsoupsClash(client) {
  const nice = pluginPath('libgstnice.so');
  if (!nice) return false;
  const clientSoup = /libsoup-(\d)/.exec(linkedLibraries(client))?.[1];
  const niceSoup = /libsoup-(\d)/.exec(linkedLibraries(nice))?.[1];
  return clientSoup !== undefined && niceSoup !== undefined && clientSoup !== niceSoup;
}

const compiler = () => ['/usr/bin/cc', '/usr/bin/gcc'].find((path) => existsSync(path));

/** Writes the launcher (with the no-op UPnP library when needed); false when it cannot. */
function writeLauncher(client) {
  mkdirSync(CACHE, { recursive: true });
  let libraryPath = '';
  if (libsoupsClash(client)) {
    const cc = compiler();
    if (!cc) return false;
    writeFileSync(`${CACHE}/no-upnp.c`, NO_UPNP_SOURCE);
    const built = spawnSync(
      cc,
      [
        '-shared',
        '-fPIC',
        '-Wl,-soname,libgupnp-igd-1.0.so.4',
        '-o',
        `${CACHE}/libgupnp-igd-1.0.so.4`,
        `${CACHE}/no-upnp.c`,
      ],
      { stdio: 'inherit', timeout: 60_000 },
    );
    if (built.status !== 0) return false;
    libraryPath = `LD_LIBRARY_PATH='${CACHE}'\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} `;
  }
  writeFileSync(
    CLIENT_LAUNCHER,
    `#!/bin/sh\n# Written by scripts/ensure-whip-client.mjs (see there).\n` +
      `${libraryPath}exec '${client}' "$@"\n`,
  );
  chmodSync(CLIENT_LAUNCHER, 0o755);
  return true;
}

const needsCompiler = () => {
  const client = clientPath();
  return client !== undefined && libsoupsClash(client) && !compiler();
};

/** Whether scripts/h264-sei-encoder.py can load GStreamer (a missing one skips only its test). */
const gstreamerForPython = () =>
  spawnSync('/usr/bin/python3', ['-c', "import gi; gi.require_version('Gst', '1.0')"], {
    timeout: 10_000,
  }).status === 0;

const ready = () =>
  clientPath() !== undefined && missingPlugins().length === 0 && gstreamerForPython();

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if ((!ready() || needsCompiler()) && isRoot && hasApt) {
  console.log('[tailcam] installing simple-whip-client and its GStreamer encoders (apt-get)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    spawnSync('apt-get', args, { stdio: 'inherit', env, timeout: APT_TIMEOUT_MS }).status === 0;
  const install = (packages) => () =>
    apt(['install', '-y', '-qq', '--no-install-recommends', ...packages]);
  // The package lists of a fresh image may be stale or empty: refresh them only when needed.
  const installed = (packages) =>
    install(packages)() || (apt(['update', '-qq']) && install(packages)());
  if (!ready()) installed(PACKAGES);
  if (needsCompiler()) installed(COMPILER_PACKAGES);
}

const client = clientPath();
if (client && missingPlugins().length === 0 && writeLauncher(client)) {
  if (!gstreamerForPython()) {
    console.error(
      '[tailcam] SKIPPED: the GStreamer encoder with flight data (whip-gstreamer.test.ts): ' +
        'Debian 12: sudo apt-get install python3-gi gir1.2-gstreamer-1.0',
    );
  }
  process.exit(0);
}

const missing = [
  ...(client ? [] : ['the whip-client binary']),
  ...missingPlugins().map((plugin) => `GStreamer's ${plugin}`),
  ...(client && needsCompiler() ? ['a C compiler (for the no-UPnP libnice shim)'] : []),
];
console.error(`
################################################################################
# SKIPPED: the tests that publish with a real WHIP encoder (GStreamer's
# simple-whip-client): local-stage whip-gstreamer.test.ts and
# e2e/whip-gstreamer.spec.ts. Missing: ${missing.join(', ')}.
# On Debian 12: sudo apt-get install simple-whip-client gcc \\
#   gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
# then: node scripts/ensure-whip-client.mjs (npm test runs it), and run the
# tests again. WHIP_CLIENT_PATH may point at a whip-client built elsewhere.
################################################################################
`);
process.exit(3);
