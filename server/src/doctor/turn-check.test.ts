import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  coturnMissing,
  startCoturn,
  type RunningCoturn,
} from '@tailcam/local-stage/testing/coturn';
import { checkTurnServers } from './turn-check';

const SECRET = 'a-doctor-test-coturn-static-auth-secret';
const missing = coturnMissing();
if (missing !== undefined) console.warn(`SKIPPED turn-check.test.ts: ${missing}`);

let coturn: RunningCoturn | undefined;

beforeAll(async () => {
  if (missing === undefined) coturn = await startCoturn({ secret: SECRET, tls: true });
});

afterAll(async () => {
  await coturn?.close();
});

describe.skipIf(missing !== undefined)("the doctor's TURN check, against coturn", () => {
  it('passes each transport that allocates with a TURN_SECRET credential, and says why a certificate fails', async () => {
    const port = coturn?.port;
    const results = await checkTurnServers({
      urls: [
        `turn:127.0.0.1:${port}?transport=udp`,
        `turn:127.0.0.1:${port}?transport=tcp`,
        `turns:127.0.0.1:${coturn?.tlsPort}?transport=tcp`,
      ],
      secret: SECRET,
      credentialMinutes: 5,
    });
    expect(results).toEqual([
      { uri: `turn:127.0.0.1:${port}?transport=udp`, problem: undefined },
      { uri: `turn:127.0.0.1:${port}?transport=tcp`, problem: undefined },
      {
        uri: `turns:127.0.0.1:${coturn?.tlsPort}?transport=tcp`,
        problem: expect.stringMatching(/self[- ]signed certificate/),
      },
    ]);
    expect(coturn?.log()).toMatch(
      /user <\d+:tailcam-doctor>: incoming packet ALLOCATE processed, success/,
    );
  });

  it("fails a secret that is not coturn's, and a server that does not answer", async () => {
    const results = await checkTurnServers({
      urls: [`turn:127.0.0.1:${coturn?.port}?transport=tcp`, 'turn:127.0.0.1:1?transport=udp'],
      secret: 'another-secret-of-at-least-32-characters',
      credentialMinutes: 5,
    });
    expect(results[0]?.problem).toMatch(/refused TURN_SECRET's credential \(401\)/);
    expect(results[1]?.problem).toMatch(/no answer within 3 s|ECONNREFUSED/);
  });
});
