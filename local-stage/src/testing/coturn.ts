/**
 * Debian's coturn for tests: listening on loopback only, with the shared-secret REST scheme the
 * API and the stage issue credentials for (decision 0063), its own ports, no TLS/DTLS listeners,
 * loopback peers allowed, its log in a temporary file. It lives at most `lifetimeSeconds` even if
 * the test process dies (`timeout` ends it).
 *
 * It relays from the address the stage's host candidates are on (this machine's first
 * non-loopback IPv4, else 127.0.0.1): a relay socket bound to 127.0.0.1 that sends to the stage's
 * 192.0.2.2, say, is answered from 127.0.0.1, not from the candidate's address, and ICE drops
 * such answers as non-symmetric. Nothing leaves the machine: the stage is on it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

export const TURNSERVER = '/usr/bin/turnserver';

export interface RunningCoturn {
  /** The listening port, TCP and UDP, on 127.0.0.1. */
  port: number;
  /** What coturn has logged so far. */
  log(): string;
  close(): Promise<void>;
}

/** Why coturn cannot run here, or undefined when it can. */
export function coturnMissing(): string | undefined {
  const probe = spawnSync(TURNSERVER, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (probe.error !== undefined) {
    return `${TURNSERVER} is not installed (apt-get install coturn; npm test installs it as root)`;
  }
  return undefined;
}

/** The address the stage's host candidates are on, which the relay must send from. */
export function stageCandidateAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((address) => address.family === 'IPv4' && !address.internal);
    if (found !== undefined) return found.address;
  }
  return '127.0.0.1';
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startCoturn(options: {
  secret: string;
  lifetimeSeconds?: number;
}): Promise<RunningCoturn> {
  const dir = mkdtempSync(join(tmpdir(), 'tailcam-coturn-'));
  const logFile = join(dir, 'turnserver.log');
  const port = await freePort();
  const child: ChildProcess = spawn(
    'timeout',
    [
      String(options.lifetimeSeconds ?? 120),
      TURNSERVER,
      '-n',
      '--listening-ip=127.0.0.1',
      `--relay-ip=${stageCandidateAddress()}`,
      `--listening-port=${port}`,
      '--no-tls',
      '--no-dtls',
      '--use-auth-secret',
      `--static-auth-secret=${options.secret}`,
      '--realm=tailcam.test',
      '--allow-loopback-peers',
      '--no-cli',
      '--no-stdout-log',
      `--log-file=${logFile}`,
      '--simple-log',
      '--verbose',
      `--pidfile=${join(dir, 'turnserver.pid')}`,
      `--userdb=${join(dir, 'turndb')}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const output = log();
      await close();
      throw new Error(`coturn did not start listening on ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, log, close };
}
