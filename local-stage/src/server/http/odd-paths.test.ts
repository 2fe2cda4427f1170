/**
 * What the stage answers for a path a hand might write or a proxy might pass on oddly: it takes
 * the path exactly as sent, so a percent-encoded letter, a `;`, a doubled or trailing slash, a
 * letter in another case, a dot segment or a `#` names no route, and never one behind the
 * loopback rule (decision 0087; a router that decodes paths, as find-my-way does, must keep these
 * answers). The WHIP and WHEP doors read their own tail of the path and say what the URL is.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../testing/raw-request';
import { startTestStage } from '../../testing/test-stage';
import type { RunningStage } from '../start';

const secret = new TextEncoder().encode('an-odd-paths-test-secret-of-enough-length');
let stage: RunningStage;

beforeAll(async () => {
  stage = await startTestStage({ secret, faultsEnabled: true });
});

afterAll(async () => {
  await stage?.close();
});

const NOT_FOUND = 'Not found';
const NO_WHIP_STAGE = 'No such stage: the WHIP URL is /stage/whip/ and a tail number';

/** [method, path, status, the answer's `error` (undefined: a 2xx)]. */
const ANSWERS: [string, string, number, string | undefined][] = [
  ['GET', '/stage/health', 200, undefined],
  ['GET', '/stage/health?x=1', 200, undefined],
  ['GET', '/stage/heal%74h', 404, NOT_FOUND],
  ['GET', '/stage/%68ealth', 404, NOT_FOUND],
  ['GET', '/stage/h%C3%A9alth', 404, NOT_FOUND],
  ['GET', '/stage/health%', 404, NOT_FOUND],
  ['GET', '/stage/health%00', 404, NOT_FOUND],
  ['GET', '/stage/health%2F', 404, NOT_FOUND],
  ['GET', '/stage/health;x', 404, NOT_FOUND],
  ['GET', '/stage/health;', 404, NOT_FOUND],
  ['GET', '/stage/health/', 404, NOT_FOUND],
  ['GET', '/stage/health#x', 404, NOT_FOUND],
  ['GET', '//stage/health', 404, NOT_FOUND],
  ['GET', '/stage//health', 404, NOT_FOUND],
  ['GET', '/stage/./health', 404, NOT_FOUND],
  ['GET', '/STAGE/health', 404, NOT_FOUND],
  ['GET', '/stage/Health', 404, NOT_FOUND],
  ['POST', '/stage/health', 404, NOT_FOUND],
  ['POST', '/stage/whip/N743AS', 415, 'The body must be application/sdp'],
  ['POST', '/stage/whip/N743A%53', 404, NO_WHIP_STAGE],
  ['POST', '/stage/whip/N743AS;x', 404, NO_WHIP_STAGE],
  ['POST', '/stage/whip/N743AS/', 404, NO_WHIP_STAGE],
  ['POST', '/stage/whip/', 404, NO_WHIP_STAGE],
  ['POST', '/stage/wh%69p/N743AS', 404, NOT_FOUND],
  ['POST', '/stage/WHIP/N743AS', 404, NOT_FOUND],
  ['POST', '/stage/whip//N743AS', 404, NOT_FOUND],
  ['GET', '/_stats', 200, undefined],
  ['GET', '/_st%61ts', 404, NOT_FOUND],
  ['GET', '/_stats;x', 404, NOT_FOUND],
  ['GET', '/_stats/', 404, NOT_FOUND],
  ['GET', '//_stats', 404, NOT_FOUND],
  ['GET', '/_Stats', 404, NOT_FOUND],
  // Decoded, these would be loopback routes; as sent, they do not start with /_.
  ['GET', '/%5fstats', 404, NOT_FOUND],
  ['POST', '/%5Fcontrol/presence', 404, NOT_FOUND],
  ['GET', '/stage/../_stats', 404, NOT_FOUND],
  ['GET', '/stage/%2E%2E/_stats', 404, NOT_FOUND],
  ['GET', '/stage/..%2f_stats', 404, NOT_FOUND],
  ['GET', '/stage/%5c_stats', 404, NOT_FOUND],
  ['GET', '/stage\\..\\_stats', 404, NOT_FOUND],
  ['POST', '/_control/presence', 401, "The stage's control routes need the API's control token"],
  ['POST', '/_control/presenc%65', 404, NOT_FOUND],
  ['POST', '/_control/presence;x', 404, NOT_FOUND],
  ['POST', '/_control/presence/', 404, NOT_FOUND],
  ['GET', '/_control/on-air;x', 404, NOT_FOUND],
  ['GET', '/_control/on-ai%72', 404, NOT_FOUND],
  // The fault routes read their own tail, and answer any method but POST first.
  ['GET', '/_faults/state', 200, undefined],
  ['GET', '/_faults/stat%65', 405, 'Use POST'],
  ['POST', '/_faults/stat%65', 404, 'No such fault'],
  ['POST', '/_faults/drop;x', 404, 'No such fault'],
  ['GET', '*', 404, NOT_FOUND],
  ['GET', 'stage/health', 400, 'Malformed request'],
];

/** The status of a WebSocket upgrade at `path` (101: taken). */
function upgradeStatus(path: string): Promise<number> {
  const { hostname, port } = new URL(stage.url);
  return new Promise((resolve, reject) => {
    const outgoing = request({
      host: hostname,
      port,
      path,
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    outgoing.on('upgrade', (answer, socket) => {
      socket.destroy();
      resolve(answer.statusCode ?? 0);
    });
    outgoing.on('response', (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('odd paths', () => {
  it.each(ANSWERS)('%s %s: %i', async (method, path, status, error) => {
    const body = method === 'POST' ? '{}' : undefined;
    const answer = await rawRequest(
      stage.url,
      method,
      path,
      { 'content-type': 'application/json' },
      body,
    );
    expect(answer.status).toBe(status);
    if (error !== undefined) expect(JSON.parse(answer.text)).toEqual({ error });
  });

  it('takes a socket only at the exact paths: /stage/events, and the camera link (its token asked)', async () => {
    const answers: Record<string, number> = {};
    for (const path of [
      '/stage/events',
      '/stage/event%73',
      '/stage/events;x',
      '/stage/events/',
      '//stage/events',
      '/STAGE/events',
      '/stage/%2e%2e/_control/cameras',
      '/_control/cameras',
      '/_control/camera%73',
      '/_control/cameras;x',
      '/_control/cameras/',
    ]) {
      answers[path] = await upgradeStatus(path);
    }
    expect(answers).toEqual({
      '/stage/events': 101,
      '/stage/event%73': 404,
      '/stage/events;x': 404,
      '/stage/events/': 404,
      '//stage/events': 404,
      '/STAGE/events': 404,
      '/stage/%2e%2e/_control/cameras': 404,
      '/_control/cameras': 401,
      '/_control/camera%73': 404,
      '/_control/cameras;x': 404,
      '/_control/cameras/': 404,
    });
  });
});
