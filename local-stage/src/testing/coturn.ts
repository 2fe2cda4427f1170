/**
 * Debian's coturn for tests: listening on loopback only, with the shared-secret REST scheme the
 * API and the stage issue credentials for (decision 0063), its own ports, no DTLS listener and a
 * TLS one only when asked (a throwaway self-signed certificate for 127.0.0.1), loopback peers
 * allowed, its log in a temporary file. It lives at most `lifetimeSeconds` even if
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
  /** The TLS port (`turns:`), when asked for. */
  tlsPort: number | undefined;
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

/** A self-signed certificate for 127.0.0.1 in `dir`, valid a day: its key and certificate files. */
function throwawayCertificate(dir: string): { key: string; cert: string } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
    ].concat(['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert]),
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  return { key, cert };
}

export async function startCoturn(options: {
  secret: string;
  lifetimeSeconds?: number;
  /** Also listen for TURN over TLS, with a throwaway self-signed certificate. */
  tls?: boolean;
}): Promise<RunningCoturn> {
  const dir = mkdtempSync(join(tmpdir(), 'tailcam-coturn-'));
  const logFile = join(dir, 'turnserver.log');
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : undefined;
  const certificate = options.tls ? throwawayCertificate(dir) : undefined;
  const tlsArgs =
    tlsPort === undefined || certificate === undefined
      ? ['--no-tls']
      : [
          `--tls-listening-port=${tlsPort}`,
          `--cert=${certificate.cert}`,
          `--pkey=${certificate.key}`,
        ];
  const child: ChildProcess = spawn(
    'timeout',
    [
      String(options.lifetimeSeconds ?? 120),
      TURNSERVER,
      '-n',
      '--listening-ip=127.0.0.1',
      `--relay-ip=${stageCandidateAddress()}`,
      `--listening-port=${port}`,
      ...tlsArgs,
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
  return { port, tlsPort, log, close };
}
