import { describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { createLoginTokens } from './login-token';

const secret = new TextEncoder().encode('login-token-test-secret-long-enough-0123');
const userId = '3dc3aed5-73e3-4236-9dd0-f15c25193cf5';
const identity = { userId, username: 'alice', tokenGeneration: 3 };

describe('login tokens', () => {
  it('round-trip the user id and name', async () => {
    const tokens = createLoginTokens({ secret, ttlHours: 12 });
    expect(await tokens.verify(await tokens.issue(identity))).toEqual(identity);
  });

  it('refuse a token issued more than a minute ahead of this clock, as by an instance whose clock runs ahead', async () => {
    const at = (iso: string) => () => new Date(iso);
    const verifier = createLoginTokens({ secret, ttlHours: 12, now: at('2026-01-01T00:00:00Z') });
    const slightlyAhead = createLoginTokens({
      secret,
      ttlHours: 12,
      now: at('2026-01-01T00:01:00Z'),
    });
    const farAhead = createLoginTokens({ secret, ttlHours: 12, now: at('2026-01-01T00:01:01Z') });
    expect(await verifier.verify(await slightlyAhead.issue(identity))).toEqual(identity);
    expect(await verifier.verify(await farAhead.issue(identity))).toBeUndefined();
  });

  it('refuse a token whose payload was tampered with', async () => {
    const tokens = createLoginTokens({ secret, ttlHours: 12 });
    const [header, , signature] = (await tokens.issue(identity)).split('.');
    const payload = Buffer.from(
      JSON.stringify({ sub: userId, name: 'admin', aud: 'tailcam-api', iss: 'tailcam', exp: 2e9 }),
    ).toString('base64url');
    expect(await tokens.verify(`${header}.${payload}.${signature}`)).toBeUndefined();
  });

  it('refuse an expired token', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const tokens = createLoginTokens({ secret, ttlHours: 1, now: () => now });
    const token = await tokens.issue(identity);
    now = new Date(now.getTime() + 3601_000);
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it('refuse an unsigned token (alg none)', async () => {
    const tokens = createLoginTokens({ secret, ttlHours: 1 });
    const unsigned = new UnsecuredJWT({ name: 'alice' })
      .setSubject(userId)
      .setAudience('tailcam-api')
      .setIssuer('tailcam')
      .setExpirationTime('1h')
      .encode();
    expect(await tokens.verify(unsigned)).toBeUndefined();
  });

  it('refuse a token signed with another secret', async () => {
    const other = createLoginTokens({
      secret: new TextEncoder().encode('another-secret-that-is-also-long-enough!'),
      ttlHours: 1,
    });
    const tokens = createLoginTokens({ secret, ttlHours: 1 });
    expect(await tokens.verify(await other.issue(identity))).toBeUndefined();
  });

  it('refuse a participant token even when signed with the same secret', async () => {
    const tokens = createLoginTokens({ secret, ttlHours: 1 });
    const participantToken = await issueParticipantToken({
      secret,
      participantId: 'p-1',
      stageId: 'N743AS',
      userId,
      attributes: {},
      capabilities: { publish: false, subscribe: true },
      stageBaseUrl: 'http://127.0.0.1:8080/stage',
      ttlSeconds: 60,
    });
    expect(await tokens.verify(participantToken)).toBeUndefined();
  });

  it('refuse a token with another algorithm or a subject that is not a user id', async () => {
    const tokens = createLoginTokens({ secret, ttlHours: 1 });
    const hs512 = await new SignJWT({ name: 'alice' })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject(userId)
      .setAudience('tailcam-api')
      .setIssuer('tailcam')
      .setExpirationTime('1h')
      .sign(secret);
    expect(await tokens.verify(hs512)).toBeUndefined();
    const badSubject = await new SignJWT({ name: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject("x' OR 1=1")
      .setAudience('tailcam-api')
      .setIssuer('tailcam')
      .setExpirationTime('1h')
      .sign(secret);
    expect(await tokens.verify(badSubject)).toBeUndefined();
    expect(await tokens.verify('')).toBeUndefined();
  });
});
