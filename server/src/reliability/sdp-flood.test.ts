/**
 * A flood of WHIP and WHEP offers from one address, with the default limits (decision
 * 0065): the API's door lets the first 30 WHIP (300 WHEP: a room of players behind one address)
 * offers of the minute through to the stage and refuses the rest with 429 before they reach it,
 * and a publisher or player from another address still gets in meanwhile.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { build, testConfig } from '../test/helpers';
import { startStandInStage, type ReceivedRequest } from '../test/stand-in-stage';

const OFFER =
  'v=0\r\no=- 42 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n';

function answerAsTheStage(request: ReceivedRequest, response: ServerResponse): void {
  response.writeHead(201, {
    location: `${request.url}/session-${Math.random().toString(36).slice(2)}`,
    'content-type': 'application/sdp',
  });
  response.end('v=0\r\n');
}

describe.each([
  ['whip', 30],
  ['whep', 300],
] as const)('a flood of %s offers from one address, default limits', (door, perMinute) => {
  it(`passes ${perMinute} a minute to the stage, refuses the rest early, and lets another address in`, async () => {
    const stage = await startStandInStage(answerAsTheStage);
    const base = testConfig();
    const { app } = await build({
      config: { localStage: { ...base.localStage, url: stage.url } },
    });
    expect(base[door === 'whip' ? 'whipRateLimitPerMinute' : 'whepRateLimitPerMinute']).toBe(
      perMinute,
    );
    const offer = (remoteAddress: string) =>
      app.inject({
        method: 'POST',
        url: `/stage/${door}/N743AS`,
        headers: { 'content-type': 'application/sdp', authorization: 'Bearer flood' },
        payload: OFFER,
        remoteAddress,
      });

    const started = performance.now();
    const statuses = new Map<number, number>();
    for (let sent = 0; sent < 1_000; sent += 1) {
      const { statusCode } = await offer('203.0.113.66');
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
    }
    const floodMs = performance.now() - started;
    expect(Object.fromEntries(statuses)).toEqual({ 201: perMinute, 429: 1_000 - perMinute });
    expect(stage.received).toHaveLength(perMinute);
    console.log(`${door}: 1,000 offers from one address answered in ${Math.round(floodMs)} ms`);

    // Meanwhile, an encoder or a player elsewhere is not affected.
    expect((await offer('198.51.100.20')).statusCode).toBe(201);
    expect(stage.received).toHaveLength(perMinute + 1);
  });
});

describe('a flood of trickle PATCHes from one address, default limits', () => {
  it('passes 1,500 a minute to the stage, WHIP and WHEP together, refuses the rest early, and lets another address in', async () => {
    const stage = await startStandInStage((_request, response) => response.writeHead(204).end());
    const base = testConfig();
    const { app } = await build({
      config: { localStage: { ...base.localStage, url: stage.url } },
    });
    expect(base.trickleRateLimitPerMinute).toBe(1_500);
    const patch = (door: string, remoteAddress: string) =>
      app.inject({
        method: 'PATCH',
        url: `/stage/${door}/N743AS/session-1`,
        headers: { 'content-type': 'application/trickle-ice-sdpfrag', authorization: 'Bearer x' },
        payload: 'a=candidate:1 1 udp 2122260223 192.0.2.1 50000 typ host\r\n',
        remoteAddress,
      });
    const statuses = new Map<number, number>();
    for (let sent = 0; sent < 3_000; sent += 1) {
      const { statusCode, headers } = await patch(sent % 2 === 0 ? 'whip' : 'whep', '203.0.113.66');
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      if (statusCode === 429) expect(Number(headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 204: 1_500, 429: 1_500 });
    expect(stage.received).toHaveLength(1_500);
    expect((await patch('whep', '198.51.100.20')).statusCode).toBe(204);
  });
});
