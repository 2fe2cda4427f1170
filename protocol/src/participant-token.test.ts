import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import {
  issueParticipantToken,
  localStageEndpoints,
  verifyParticipantToken,
  ParticipantTokenError,
} from './participant-token';

const secret = new TextEncoder().encode('a-test-secret-that-is-long-enough-for-hs256');
const baseInput = {
  secret,
  participantId: 'p-1',
  stageId: 'N743AS',
  userId: 'user-1',
  attributes: { clientId: '6f1c3a52-6f0e-4a63-9d8b-7d7c4c7f8a11' },
  capabilities: { publish: false, subscribe: true },
  stageBaseUrl: 'http://127.0.0.1:8080/stage',
  ttlSeconds: 60,
};

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    return error instanceof ParticipantTokenError ? error.reason : 'other';
  }
}

describe('participant token', () => {
  it('carries IVS-shaped claims that the local stage accepts for the same stage', async () => {
    const token = await issueParticipantToken(baseInput);
    const claims = await verifyParticipantToken(token, {
      secret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    expect(claims).toMatchObject({
      jti: 'p-1',
      topic: 'N743AS',
      resource: 'arn:tailcam:local:stage/N743AS',
      user_id: 'user-1',
      capabilities: { allow_publish: false, allow_subscribe: true },
      events_url: 'ws://127.0.0.1:8080/stage/events',
      whip_url: 'http://127.0.0.1:8080/stage/whip/N743AS',
    });
    expect(claims.exp - claims.iat).toBe(60);
    expect(claims.gen).toBeUndefined();
  });

  it("carries the account's token generation when given one (an operator's token has none)", async () => {
    const token = await issueParticipantToken({ ...baseInput, tokenGeneration: 3 });
    const claims = await verifyParticipantToken(token, {
      secret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    expect(claims.gen).toBe(3);
  });

  it("derives secure WebSocket endpoints behind https, and the stage's own WHIP endpoint", () => {
    expect(localStageEndpoints('https://tailcam.example/stage/', 'N954AS')).toEqual({
      eventsUrl: 'wss://tailcam.example/stage/events',
      whipUrl: 'https://tailcam.example/stage/whip/N954AS',
    });
    expect(localStageEndpoints('http://127.0.0.1:8080/stage', 'N743AS').whipUrl).toBe(
      'http://127.0.0.1:8080/stage/whip/N743AS',
    );
  });

  it('refuses a token for another stage, a publish without the capability, expiry and forgery', async () => {
    const token = await issueParticipantToken(baseInput);
    const verify = (options: Partial<Parameters<typeof verifyParticipantToken>[1]>, t = token) =>
      verifyParticipantToken(t, { secret, stageId: 'N743AS', capability: 'subscribe', ...options });

    expect(await reasonOf(verify({ stageId: 'N953AS' }))).toBe('not_allowed');
    expect(await reasonOf(verify({ capability: 'publish' }))).toBe('not_allowed');
    expect(await reasonOf(verify({ now: new Date(Date.now() + 120_000) }))).toBe('expired');
    expect(await reasonOf(verify({ secret: new TextEncoder().encode('x'.repeat(40)) }))).toBe(
      'invalid_signature',
    );
    expect(await reasonOf(verify({}, 'not-a-jwt'))).toBe('malformed');
    const [header, payload] = token.split('.');
    expect(await reasonOf(verify({}, `${header}.${payload}.`))).not.toBe('accepted');
  });

  it('refuses an unsigned token and a token without the local stage audience', async () => {
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${token64()}.`;
    expect(
      await reasonOf(
        verifyParticipantToken(unsigned, { secret, stageId: 'N743AS', capability: 'subscribe' }),
      ),
    ).toBe('malformed');
    const loginLike = await new SignJWT({ sub: 'user-1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(secret);
    expect(
      await reasonOf(
        verifyParticipantToken(loginLike, { secret, stageId: 'N743AS', capability: 'subscribe' }),
      ),
    ).toBe('malformed');
  });
});

function token64(): string {
  return Buffer.from(JSON.stringify({ topic: 'N743AS', exp: 9999999999 })).toString('base64url');
}
