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
import { connect as connectTls } from 'node:tls';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStun, STUN_CLASS, STUN_METHOD, stunRequest } from '@tailcam/protocol/stun-message';

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

/**
 * Whether coturn answers a STUN Binding request on `port` (over TLS with `tls`): a port that only
 * accepts connections may be another process's, taken between `freePort` and coturn's bind
 * (coturn then keeps trying to bind it, and a browser's TURN allocation goes to the other).
 */
function answersStun(port: number, tls: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const request = stunRequest(STUN_METHOD.BINDING);
    const socket = tls
      ? connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false })
      : createConnection({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), 1_000);
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 20) return;
      // A Binding success response to this request: its transaction ID echoed.
      const answer = parseStun(received);
      done(
        answer?.type === (STUN_METHOD.BINDING | STUN_CLASS.SUCCESS) &&
          answer.transactionId.equals(request.subarray(8, 20)),
      );
    });
    socket.once('error', () => done(false));
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

interface CoturnOptions {
  secret: string;
  lifetimeSeconds?: number;
  /** Also listen for TURN over TLS, with a throwaway self-signed certificate. */
  tls?: boolean;
}

/** Starts coturn; on ports another process took meanwhile, again on others (three tries). */
export async function startCoturn(options: CoturnOptions): Promise<RunningCoturn> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnFreePorts(options);
    } catch (error) {
      if (attempt === 3 || !(error instanceof PortsTaken)) throw error;
    }
  }
}

class PortsTaken extends Error {}

async function startOnFreePorts(options: CoturnOptions): Promise<RunningCoturn> {
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
  const ready = async () =>
    (await answersStun(port, false)) && (tlsPort === undefined || answersStun(tlsPort, true));
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const output = log();
      await close();
      const message = `coturn did not answer STUN on ${port}${tlsPort === undefined ? '' : ` and ${tlsPort} (TLS)`}:\n${output}`;
      throw /Cannot bind|errno=98/.test(output) ? new PortsTaken(message) : new Error(message);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, tlsPort, log, close };
}
