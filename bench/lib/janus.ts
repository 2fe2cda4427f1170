/**
 * Janus (Debian's, installed by scripts/ensure-janus.mjs) as the bench runs it beside our stage:
 * loopback only, host candidates only, its own configuration in a temporary directory, only the
 * streaming plugin and the HTTP/WebSocket transports loaded, one VP8 mountpoint; and the feed
 * that keeps that mountpoint on air (bench/lib/janus-feed.ts: our synthetic camera's scene, time
 * strip included, encoded by GStreamer's vp8enc and sent as plain RTP).
 *
 * Ports, all derived from BENCH_PORT (29080 by default) so that two benches on one machine, each
 * with its own BENCH_PORT, never share one (benchPorts()): Janus's HTTP and WebSocket transports
 * at BENCH_PORT + 100 and + 101 (or BENCH_JANUS_HTTP_PORT, BENCH_JANUS_WS_PORT), the mountpoint's
 * RTP/RTCP and the feed's RTCP at + 110 to + 113, Janus's ICE (media) ports + 200 to + 399.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '@tailcam/harness/product';
import { z } from 'zod';

const JANUS_BINARY = process.env.JANUS_PATH ?? '/usr/bin/janus';
const JANUS_LIBRARIES = '/usr/lib/x86_64-linux-gnu/janus';
export const JANUS_JS = '/usr/share/javascript/janus-gateway/janus.js';
/** The one mountpoint: VP8 640x360@30, payload type 96. */
export const MOUNTPOINT_ID = 1;
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

export interface JanusPorts {
  http: number;
  ws: number;
  /** Where the mountpoint takes the feed's RTP. */
  videoRtp: number;
  /** The mountpoint's RTCP port: the feed's receiver reports in, Janus's PLIs out. */
  videoRtcp: number;
  /** GStreamer's RTCP input (the PLIs the feed relays to its encoder). */
  feedRtcp: number;
  /** The feed's socket that talks to videoRtcp. */
  feedRelay: number;
  media: string;
}

/** The bench's API port; every other port of the bench is an offset from it. */
export function benchPort(): number {
  return Number(process.env.BENCH_PORT ?? 29080);
}

/** The peer page's loopback origin (bench/lib/peer-sessions.ts): BENCH_PORT + 102. */
export function peerPagePort(): number {
  return Number(process.env.BENCH_PEER_PAGE_PORT ?? benchPort() + 102);
}

export function janusPorts(): JanusPorts {
  const base = benchPort();
  return {
    http: Number(process.env.BENCH_JANUS_HTTP_PORT ?? base + 100),
    ws: Number(process.env.BENCH_JANUS_WS_PORT ?? base + 101),
    videoRtp: base + 110,
    videoRtcp: base + 111,
    feedRtcp: base + 112,
    feedRelay: base + 113,
    media: `${base + 200}-${base + 399}`,
  };
}

const info = z.object({ plugins: z.record(z.string(), z.unknown()) });

function configuration(directory: string, ports: JanusPorts): Record<string, string> {
  return {
    'janus.jcfg': `general: {
  configs_folder = "${directory}"
  plugins_folder = "${directory}/plugins"
  transports_folder = "${directory}/transports"
  events_folder = "${directory}/none"
  loggers_folder = "${directory}/none"
  log_to_stdout = true
  debug_level = 3
  interface = "127.0.0.1"
  session_timeout = 60
  server_name = "tailcam-bench-janus"
}
certificates: {
}
media: {
  ipv6 = false
  rtp_port_range = "${ports.media}"
}
nat: {
  nice_debug = false
  ice_lite = false
  ice_tcp = false
  full_trickle = true
  ignore_mdns = true
  ice_enforce_list = "lo"
}
plugins: {
}
transports: {
}
events: {
  broadcast = false
}
`,
    'janus.transport.http.jcfg': `general: {
  json = "compact"
  base_path = "/janus"
  http = true
  port = ${ports.http}
  ip = "127.0.0.1"
  https = false
}
admin: {
  admin_http = false
  admin_https = false
}
cors: {
}
`,
    'janus.transport.websockets.jcfg': `general: {
  json = "compact"
  ws = true
  ws_port = ${ports.ws}
  ws_ip = "127.0.0.1"
  wss = false
}
admin: {
  admin_ws = false
  admin_wss = false
}
`,
    'janus.plugin.streaming.jcfg': `general: {
  rtp_port_range = "${ports.media}"
  events = false
}
tailcam-bench: {
  type = "rtp"
  id = ${MOUNTPOINT_ID}
  description = "Tailcam bench: N743AS's synthetic scene with the time strip, VP8 640x360@30"
  audio = false
  video = true
  videoport = ${ports.videoRtp}
  videortcpport = ${ports.videoRtcp}
  videoiface = "127.0.0.1"
  videopt = 96
  videocodec = "vp8"
}
`,
  };
}

export class JanusServer {
  readonly ports = janusPorts();
  readonly directory = mkdtempSync(join(tmpdir(), 'tailcam-bench-janus-'));
  readonly logFile = join(this.directory, 'janus.log');
  private janus: ChildProcess | undefined;
  private feed: ChildProcess | undefined;

  get httpUrl(): string {
    return `http://127.0.0.1:${this.ports.http}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.ports.ws}`;
  }

  get pid(): number | undefined {
    return this.janus?.pid;
  }

  /** The feed's processes: the Node process that draws and GStreamer's encoder (its child). */
  feedPids(): number[] {
    const pid = this.feed?.pid;
    if (pid === undefined) return [];
    const children = existsSync(`/proc/${pid}/task/${pid}/children`)
      ? readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')
      : [];
    return [pid, ...children.filter(Boolean).map(Number)];
  }

  async start(): Promise<void> {
    const { directory } = this;
    for (const [name, text] of Object.entries(configuration(directory, this.ports))) {
      writeFileSync(join(directory, name), text);
    }
    // Only what the comparison needs is loaded: the streaming plugin, HTTP and WebSockets.
    for (const [folder, file] of [
      ['plugins', 'libjanus_streaming.so'],
      ['transports', 'libjanus_http.so'],
      ['transports', 'libjanus_websockets.so'],
    ] as const) {
      mkdirSync(join(directory, folder), { recursive: true });
      symlinkSync(join(JANUS_LIBRARIES, folder, file), join(directory, folder, file));
    }
    mkdirSync(join(directory, 'none'), { recursive: true });
    const log = openSync(this.logFile, 'w');
    this.janus = spawn(JANUS_BINARY, ['-o', '-C', join(directory, 'janus.jcfg'), '-F', directory], {
      stdio: ['ignore', log, log],
    });
    this.feed = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'bench', 'lib', 'janus-feed.ts'),
        JSON.stringify({
          rtpPort: this.ports.videoRtp,
          janusRtcpPort: this.ports.videoRtcp,
          gstRtcpPort: this.ports.feedRtcp,
          relayPort: this.ports.feedRelay,
        }),
      ],
      { cwd: ROOT, stdio: ['ignore', log, log] },
    );
    process.once('exit', this.killOnExit);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (this.janus.exitCode !== null) throw new Error(`janus exited; see ${this.logFile}`);
      if (this.feed.exitCode !== null) throw new Error(`the feed exited; see ${this.logFile}`);
      const ready = await fetch(`${this.httpUrl}/janus/info`, {
        signal: AbortSignal.timeout(1_000),
      })
        .then(async (response) => info.safeParse(await response.json()))
        .catch(() => undefined);
      if (ready?.success && 'janus.plugin.streaming' in ready.data.plugins) return;
      if (Date.now() > deadline) {
        throw new Error(`janus was not ready in ${START_TIMEOUT_MS / 1000} s; see ${this.logFile}`);
      }
      await new Promise((done) => setTimeout(done, 200));
    }
  }

  private readonly killOnExit = () => {
    for (const child of [this.feed, this.janus]) child?.kill('SIGKILL');
  };

  async stop(): Promise<void> {
    process.off('exit', this.killOnExit);
    await Promise.all(
      [this.feed, this.janus].map(async (child) => {
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(killer);
      }),
    );
    this.feed = undefined;
    this.janus = undefined;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
