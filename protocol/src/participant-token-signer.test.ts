import { describe, expect, it } from 'vitest';
import { issueParticipantToken, verifyParticipantToken } from './participant-token';
import { createParticipantTokenSigner } from './participant-token-signer';
import { TURN_URLS_MAX } from './turn';

const secret = new TextEncoder().encode('a-test-secret-that-is-long-enough-for-hs256');
const input = {
  participantId: 'p-1',
  stageId: 'N743AS',
  userId: 'user-1',
  attributes: { clientId: '6f1c3a52-6f0e-4a63-9d8b-7d7c4c7f8a11' },
  capabilities: { publish: false, subscribe: true },
  stageBaseUrl: 'https://tailcam.example/stage',
  ttlSeconds: 60,
  now: new Date('2026-01-01T00:00:00Z'),
};

describe('participant token signer', () => {
  it('signs exactly the token issueParticipantToken issues', async () => {
    const sign = createParticipantTokenSigner(secret);
    expect(sign(input)).toBe(await issueParticipantToken({ ...input, secret }));
    const withGeneration = { ...input, tokenGeneration: 2 };
    expect(sign(withGeneration)).toBe(await issueParticipantToken({ ...withGeneration, secret }));
  });

  it('makes tokens the local stage accepts', async () => {
    const token = createParticipantTokenSigner(secret)({ ...input, now: new Date() });
    const claims = await verifyParticipantToken(token, {
      secret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    expect(claims).toMatchObject({ jti: 'p-1', events_url: 'wss://tailcam.example/stage/events' });
  });

  it('carries ICE servers as the ice_servers claim, and leaves it out when there are none', async () => {
    const iceServers = [
      { urls: ['turn:turn.example:3478?transport=tcp'], username: '1:user-1', credential: 'c' },
    ];
    const sign = createParticipantTokenSigner(secret);
    const token = sign({ ...input, iceServers, now: new Date() });
    const claims = await verifyParticipantToken(token, {
      secret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    expect(claims.ice_servers).toEqual(iceServers);
    const without = await verifyParticipantToken(
      sign({ ...input, iceServers: [], now: new Date() }),
      {
        secret,
        stageId: 'N743AS',
        capability: 'subscribe',
      },
    );
    expect(without).not.toHaveProperty('ice_servers');
  });

  it('stays within the 8 KiB a join message takes with the most TURN URIs allowed, each as long as can be', () => {
    const longest = `turns:${'a'.repeat(253)}:65535?transport=tcp`;
    const token = createParticipantTokenSigner(secret)({
      ...input,
      userId: '00000000-0000-4000-8000-000000000000',
      iceServers: [
        {
          urls: Array<string>(TURN_URLS_MAX).fill(longest),
          username: '9999999999:00000000-0000-4000-8000-000000000000',
          credential: 'yUjuyJQQkPMWbjasKAyGxhCJ5oU=',
        },
      ],
    });
    expect(token.length).toBeLessThan(8192);
  });
});
