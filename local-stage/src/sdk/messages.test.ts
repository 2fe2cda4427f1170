import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { parseStageMessage } from './messages';
import { parseStageToken } from './token';

describe('stage messages in the SDK', () => {
  it('reads the messages of the protocol', () => {
    expect(
      parseStageMessage(
        JSON.stringify({
          type: 'joined',
          protocol: 1,
          participantId: 'p',
          stageId: 'N743AS',
          participants: [
            {
              id: 'c',
              userId: 'N743AS',
              attributes: { a: 'b', n: 1 },
              publishing: true,
              media: ['video', 'x'],
            },
          ],
        }),
      ),
    ).toEqual({
      type: 'joined',
      protocol: 1,
      participantId: 'p',
      stageId: 'N743AS',
      participants: [
        { id: 'c', userId: 'N743AS', attributes: { a: 'b' }, publishing: true, media: ['video'] },
      ],
    });
    expect(parseStageMessage('{"type":"left","reason":"token-reused"}')).toEqual({
      type: 'left',
      reason: 'token-reused',
    });
    expect(parseStageMessage('{"type":"error","code":2,"category":"JOIN_ERROR"}')).toEqual({
      type: 'error',
      code: 2,
      category: 'JOIN_ERROR',
      message: '',
      fatal: false,
    });
    // What an error is about: the SDK drops one about a subscription or request no longer wanted.
    expect(
      parseStageMessage(
        '{"type":"error","code":1,"category":"SUBSCRIBE_ERROR","message":"No such subscription","subscriptionId":"s-1","requestId":"r-1"}',
      ),
    ).toEqual({
      type: 'error',
      code: 1,
      category: 'SUBSCRIBE_ERROR',
      message: 'No such subscription',
      fatal: false,
      requestId: 'r-1',
      subscriptionId: 's-1',
    });
  });

  it("reads the stage's adaptation of a video: paused or not, and the estimate when it has one", () => {
    expect(
      parseStageMessage(
        '{"type":"videoAdaptation","subscriptionId":"s","videoPaused":true,"estimate":61000}',
      ),
    ).toEqual({
      type: 'videoAdaptation',
      subscriptionId: 's',
      videoPaused: true,
      estimate: 61_000,
    });
    expect(
      parseStageMessage('{"type":"videoAdaptation","subscriptionId":"s","estimate":"fast"}'),
    ).toEqual({ type: 'videoAdaptation', subscriptionId: 's', videoPaused: false, estimate: null });
    expect(parseStageMessage('{"type":"videoAdaptation","videoPaused":true}')).toBeNull();
  });

  it('ignores what is not a message it knows', () => {
    for (const text of ['', 'null', '[]', '{"type":"nope"}', '{"type":"offer","sdp":1}', '{']) {
      expect(parseStageMessage(text)).toBeNull();
    }
    expect(parseStageMessage('{"type":"left","reason":"gremlins"}')).toEqual({
      type: 'left',
      reason: 'unknown',
    });
  });
});

describe('participant token in the SDK', () => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    jti: 'p-1',
    topic: 'N743AS',
    user_id: 'u-1',
    attributes: { clientId: 'c-1' },
    capabilities: { allow_publish: false, allow_subscribe: true },
    events_url: 'ws://127.0.0.1:8080/stage/events',
    whip_url: 'http://127.0.0.1:8080/stage/whep',
    exp: 2_000_000_000,
  };

  it('reads the claims of a well-formed token without checking its signature', () => {
    expect(parseStageToken(`${encode({ alg: 'HS256' })}.${encode(claims)}.c2ln`)).toMatchObject({
      participantId: 'p-1',
      stageId: 'N743AS',
      eventsUrl: 'ws://127.0.0.1:8080/stage/events',
      canSubscribe: true,
      canPublish: false,
      expiresAtMs: 2_000_000_000_000,
    });
  });

  it("reads the token's TURN servers for its peer connections, leaving out malformed entries", () => {
    const turn = {
      urls: ['turn:turn.example:3478?transport=tcp', 'turns:turn.example:5349?transport=tcp'],
      username: '1767229200:u-1',
      credential: 'yUjuyJQQkPMWbjasKAyGxhCJ5oU=',
    };
    const read = (ice_servers: unknown) =>
      parseStageToken(`${encode({})}.${encode({ ...claims, ice_servers })}.c2ln`).iceServers;
    expect(parseStageToken(`${encode({})}.${encode(claims)}.c2ln`).iceServers).toEqual([]);
    expect(read([turn])).toEqual([turn]);
    expect(
      read([
        { ...turn, urls: ['javascript:alert(1)'] },
        { ...turn, credential: 5 },
        'turn:x',
        { ...turn, urls: 'turn:turn.example' },
      ]),
    ).toEqual([{ ...turn, urls: ['turn:turn.example'] }]);
    expect(read('not a list')).toEqual([]);
  });

  it("resolves a token's paths on the page's origin: the API names the stage by configuration only", () => {
    vi.stubGlobal('location', new URL('https://tailcam.example/watch/N743AS'));
    onTestFinished(() => void vi.unstubAllGlobals());
    const relative = { ...claims, events_url: '/stage/events', whip_url: '/stage/whip/N743AS' };
    expect(parseStageToken(`${encode({})}.${encode(relative)}.c2ln`)).toMatchObject({
      eventsUrl: 'wss://tailcam.example/stage/events',
      whipUrl: 'https://tailcam.example/stage/whip/N743AS',
    });
    for (const events_url of ['//evil.example/stage/events', 'stage/events', 'https://x/']) {
      expect(
        () => parseStageToken(`${encode({})}.${encode({ ...relative, events_url })}.c2ln`),
        events_url,
      ).toThrow('[JOIN_ERROR] Token is malformed');
    }
  });

  it("refuses what is not a stage token with '[JOIN_ERROR] Token is malformed'", () => {
    for (const token of [
      'not-a-jwt',
      `${encode({})}.${encode({ ...claims, events_url: 'http://x/' })}.c2ln`,
      `${encode({})}.${encode({ ...claims, jti: 5 })}.c2ln`,
      `${encode({})}.bm90IGpzb24.c2ln`,
      `${encode({})}.${encode(claims)}.c2ln.extra`,
    ]) {
      expect(() => parseStageToken(token), token).toThrow('[JOIN_ERROR] Token is malformed');
    }
  });
});
