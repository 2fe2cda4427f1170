/**
 * Tailcam's API in `ivs` mode for the real-SDK conformance tests: the production bundle
 * (server/dist/server.js) started with STAGE_PROVIDER=ivs, made-up stage ARNs and no AWS
 * credentials at all, so that `/sdk/stage.js`, the index page and the CSP are exactly what an
 * ivs deployment serves. AWS itself is never reached: tests answer `POST /api/token` in the
 * browser (page.route), standing in for IVS's CreateParticipantToken.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SignJWT } from 'jose';

const root = resolve(import.meta.dirname, '..', '..');

/** The real Amazon IVS Web Broadcast SDK, as the npm package ships it. */
export const IVS_SDK_FILE = join(
  root,
  'node_modules',
  'amazon-ivs-web-broadcast',
  'dist',
  'amazon-ivs-web-broadcast.js',
);
export const LOCAL_SDK_FILE = join(root, 'local-stage', 'dist', 'stage-sdk.js');

export const readIvsSdk = (): Buffer => readFileSync(IVS_SDK_FILE);

export const FAKE_STAGE_ARN = 'arn:aws:ivs:us-east-1:123456789012:stage/AbCdEf123456';

/** A loopback port nothing listens on: bound by the system, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A participant token shaped like the ones IVS issues (a JWT with these claims; the SDK reads
 * them and does not check the signature, which only IVS can). Its endpoints are the given ones.
 */
export async function ivsLikeToken(endpoints: {
  eventsUrl: string;
  whipUrl: string;
}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    jti: randomUUID(),
    topic: FAKE_STAGE_ARN.split('/')[1],
    resource: FAKE_STAGE_ARN,
    user_id: 'e2e-viewer',
    capabilities: { allow_subscribe: true },
    events_url: endpoints.eventsUrl,
    whip_url: endpoints.whipUrl,
    version: '1.0',
  })
    .setProtectedHeader({ alg: 'HS384', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(randomBytes(48));
}

export interface IvsModeServer {
  url: string;
  stop(): Promise<void>;
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killer);
      done();
    });
    child.kill('SIGTERM');
  });
}

export async function startIvsModeServer(): Promise<IvsModeServer> {
  const port = await closedPort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tailcam-e2e-ivs-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // No AWS credentials or profile: nothing in this process may reach AWS.
    if (!name.startsWith('AWS_') && name !== 'DATABASE_URL') env[name] = value;
  }
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    STAGE_PROVIDER: 'ivs',
    AUTH_SECRET: randomBytes(36).toString('base64'),
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    IVS_STAGE_ARNS: ['N743AS', 'N953AS', 'N954AS']
      .map((id, i) => `${id}=${FAKE_STAGE_ARN.slice(0, -1)}${i}`)
      .join(','),
    LOG_LEVEL: 'warn',
  });
  const log = openSync(join(root, 'e2e', '.artifacts', 'ivs-mode-server.log'), 'w');
  const child = spawn(process.execPath, [join(root, 'server', 'dist', 'server.js')], {
    cwd: root,
    env,
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error('the ivs-mode server exited; see e2e/.artifacts/ivs-mode-server.log');
    }
    const healthy = await fetch(`${url}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      await stopProcess(child);
      throw new Error('the ivs-mode server did not start within 60 s');
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    url,
    async stop() {
      await stopProcess(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
