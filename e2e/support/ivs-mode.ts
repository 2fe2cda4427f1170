/**
 * Tailcam's API in `ivs` mode for the real-SDK conformance tests: the production bundle started
 * by the harness's Product with STAGE_PROVIDER=ivs, made-up stage ARNs and no AWS credentials, so
 * that `/sdk/stage.js`, the index page and the CSP are exactly what an ivs deployment serves. AWS itself is never reached: tests answer `POST /api/token` in the
 * browser (page.route), standing in for IVS's CreateParticipantToken.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Product, ROOT } from '@tailcam/harness/product';
import { SignJWT } from 'jose';
import { ownInstance } from './environment';

/** The real Amazon IVS Web Broadcast SDK, as the npm package ships it. */
export const IVS_SDK_FILE = join(
  ROOT,
  'node_modules',
  'amazon-ivs-web-broadcast',
  'dist',
  'amazon-ivs-web-broadcast.js',
);
export const LOCAL_SDK_FILE = join(ROOT, 'local-stage', 'dist', 'stage-sdk.js');

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

/**
 * The API in ivs mode on a port of its own, its stages made-up ARNs in a made-up account; the
 * Product gives it no AWS credentials.
 */
export function ivsModeProduct(): Product {
  return new Product({
    ...ownInstance('ivs-mode', 300),
    mode: 'ivs',
    env: {
      AWS_REGION: 'us-east-1',
      IVS_STAGE_ARNS: ['N743AS', 'N953AS', 'N954AS']
        .map((id, i) => `${id}=${FAKE_STAGE_ARN.slice(0, -1)}${i}`)
        .join(','),
    },
  });
}
