/**
 * The WHEP endpoint (players) through the API's `/stage/` proxy: the same door as WHIP's
 * (stage-proxy-whip.test.ts has every case), checked here for what could differ by prefix: the
 * offer reaches the stage raw and the answer comes back with the stage's headers, CORS_ORIGINS
 * does not apply, bodies over 64 KiB and offers over WHEP_RATE_LIMIT_PER_MINUTE are refused.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { build, testConfig } from '../test/helpers';
import { startStandInStage, type ReceivedRequest } from '../test/stand-in-stage';
import { MAX_WHIP_BODY_BYTES } from './stage-proxy';

const STAGE_CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Location',
};
const OFFER =
  'v=0\r\no=- 7 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=recvonly\r\n';
const ANSWER = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\na=ice-lite\r\n';

function answerAsTheStage(request: ReceivedRequest, res: ServerResponse): void {
  res.writeHead(request.method === 'POST' ? 201 : 200, {
    ...STAGE_CORS,
    ...(request.method === 'POST'
      ? { location: '/stage/whep/N743AS/player-1', 'content-type': 'application/sdp' }
      : {}),
  });
  res.end(request.method === 'POST' ? ANSWER : undefined);
}

const offer = (remoteAddress = '192.0.2.9', payload: string = OFFER) => ({
  method: 'POST' as const,
  url: '/stage/whep/N743AS',
  headers: {
    'content-type': 'application/sdp',
    authorization: 'Bearer a.b.c',
    origin: 'https://player.example',
  },
  payload,
  remoteAddress,
});

describe('WHEP through the /stage/ proxy', () => {
  it('passes the offer raw and the answer back, CORS as the stage says, and refuses what WHIP refuses', async () => {
    const stage = await startStandInStage(answerAsTheStage);
    const base = testConfig();
    const { app } = await build({
      config: {
        localStage: { ...base.localStage, url: stage.url },
        corsOrigins: ['https://app.example'],
        whepRateLimitPerMinute: 2,
      },
    });
    const answered = await app.inject(offer());
    expect(answered.statusCode).toBe(201);
    expect(answered.body).toBe(ANSWER);
    expect(answered.headers.location).toBe('/stage/whep/N743AS/player-1');
    expect(answered.headers['access-control-allow-origin']).toBe('*');
    expect(answered.headers.vary).toBeUndefined();
    expect(answered.headers['x-content-type-options']).toBe('nosniff');
    expect(stage.received[0]?.body.toString()).toBe(OFFER);
    expect(stage.received[0]?.headers['content-type']).toBe('application/sdp');

    const large = await app.inject(offer('192.0.2.10', 'a'.repeat(MAX_WHIP_BODY_BYTES + 1)));
    expect(large.statusCode).toBe(413);

    expect((await app.inject(offer())).statusCode).toBe(201);
    const limited = await app.inject(offer());
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      error: 'Too many WHEP offers from this address; try again in 60 seconds',
    });
    expect(stage.received).toHaveLength(2);
  });

  it("counts an OPTIONS with a token, which hands out TURN credentials, under the offers' limit, and never a preflight", async () => {
    const stage = await startStandInStage(answerAsTheStage);
    const base = testConfig();
    const { app } = await build({
      config: { localStage: { ...base.localStage, url: stage.url }, whepRateLimitPerMinute: 2 },
    });
    const ask = (authorization?: string) =>
      app.inject({
        method: 'OPTIONS',
        url: '/stage/whep/N743AS',
        headers: {
          origin: 'https://player.example',
          'access-control-request-method': 'POST',
          ...(authorization === undefined ? {} : { authorization }),
        },
        remoteAddress: '192.0.2.30',
      });
    expect((await ask('Bearer a.b.c')).statusCode).toBe(200);
    expect((await ask('Bearer a.b.c')).statusCode).toBe(200);
    const limited = await ask('Bearer a.b.c');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    // The same limit as the offers': the address's next offer waits too.
    expect((await app.inject(offer('192.0.2.30'))).statusCode).toBe(429);
    // A browser's preflight carries no token and gets no credentials: it is never counted.
    for (let preflight = 0; preflight < 3; preflight += 1) {
      expect((await ask()).statusCode).toBe(200);
    }
    expect(stage.received.map((request) => request.method)).toEqual([
      'OPTIONS',
      'OPTIONS',
      'OPTIONS',
      'OPTIONS',
      'OPTIONS',
    ]);
  });
});
