/**
 * Forged, stolen and misused tokens: each attack a client could try on `POST /api/token` (login
 * tokens) and on the local stage's join check (participant tokens). The attacks on usernames are
 * in username-attacks.test.ts.
 */
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { ParticipantTokenError, verifyParticipantToken } from '@tailcam/protocol/participant-token';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { createAccounts } from '../accounts/accounts';
import { callAdminSocket, startAdminSocket } from '../accounts/admin-socket';
import { withUserCache } from '../db/cached-user-store';
import {
  authSecret,
  build,
  CLIENT_ID,
  freshStore,
  stageTokenSecret,
  tempDir,
} from '../test/helpers';
import { verifyJoinToken } from '../../../local-stage/src/server/sessions/join-token';
import { TokenGenerations } from '../../../local-stage/src/server/sessions/token-generations';

const validBody = { stageId: 'N743AS', clientId: CLIENT_ID };

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT with any header and payload, HMAC-SHA256-signed with `key` (or unsigned). */
function handMadeJwt(header: object, payload: object, key?: Uint8Array | string): string {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  if (key === undefined) return `${signingInput}.`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

async function signedIn() {
  const test = await build();
  const user = await test.addUser('alice', 'correct horse');
  const token = await test.login('alice', 'correct horse');
  const claims = decodeJwt(token);
  return { ...test, user, token, claims };
}

async function tokenStatus(
  app: Awaited<ReturnType<typeof build>>['app'],
  loginToken: string,
  body: object = validBody,
) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/token',
    headers: { authorization: `Bearer ${loginToken}` },
    payload: body,
  });
  return { status: response.statusCode, body: response.json<{ error?: string; token?: string }>() };
}

describe('forged login tokens', () => {
  it("refuses alg 'none', with and without a signature part", async () => {
    const { app, claims } = await signedIn();
    for (const alg of ['none', 'None', 'NONE']) {
      const unsigned = handMadeJwt({ alg, typ: 'JWT' }, claims);
      expect(await tokenStatus(app, unsigned)).toEqual({
        status: 401,
        body: { error: 'Invalid or expired token' },
      });
      expect((await tokenStatus(app, unsigned.slice(0, -1))).status).toBe(401);
    }
  });

  it('refuses algorithm confusion: RS256/ES256/HS512 headers, and HMAC keyed with public material', async () => {
    const { app, claims } = await signedIn();
    // The right secret, but a header naming another algorithm: the server accepts HS256 only.
    for (const alg of ['RS256', 'ES256', 'PS256', 'HS384', 'HS512', 'EdDSA']) {
      expect(
        (await tokenStatus(app, handMadeJwt({ alg, typ: 'JWT' }, claims, authSecret))).status,
      ).toBe(401);
    }
    // Real asymmetric signatures by an attacker's key pair.
    for (const alg of ['RS256', 'ES256'] as const) {
      const { privateKey } = await generateKeyPair(alg);
      const forged = await new SignJWT(claims).setProtectedHeader({ alg }).sign(privateKey);
      expect((await tokenStatus(app, forged)).status).toBe(401);
    }
    // The classic confusion: HS256 keyed with a public key (PEM and JWK), an empty key, a guess.
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const jwk = JSON.stringify(await exportJWK(publicKey));
    for (const key of [pem, jwk, '', 'secret', 'tailcam', 'tailcam-api']) {
      expect(
        (await tokenStatus(app, handMadeJwt({ alg: 'HS256', typ: 'JWT' }, claims, key))).status,
      ).toBe(401);
    }
    // A header that smuggles its own key.
    const embedded = handMadeJwt(
      { alg: 'HS256', jwk: { kty: 'oct', k: Buffer.from('attacker').toString('base64url') } },
      claims,
      'attacker',
    );
    expect((await tokenStatus(app, embedded)).status).toBe(401);
  });

  it("refuses a token signed with the local stage's participant-token secret", async () => {
    const { app, claims } = await signedIn();
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(stageTokenSecret);
    expect((await tokenStatus(app, forged)).status).toBe(401);
  });

  it('refuses a tampered payload: another user, a later expiry, another audience', async () => {
    const { app, token, addUser } = await signedIn();
    const bob = await addUser('bob', 'battery staple');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    for (const change of [
      { sub: bob.id, name: 'bob' },
      { exp: Number(claims.exp) + 365 * 24 * 3600 },
      { aud: 'tailcam-stage' },
      { iss: 'someone-else' },
    ]) {
      const tampered = `${header}.${b64({ ...claims, ...change })}.${signature}`;
      expect((await tokenStatus(app, tampered)).status).toBe(401);
    }
    // A flipped bit in the signature.
    const flipped = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect((await tokenStatus(app, flipped)).status).toBe(401);
    // The genuine token still works: the refusals above were the attacks, not a broken setup.
    expect((await tokenStatus(app, token)).status).toBe(200);
  });

  it('refuses expired and not-yet-valid tokens, signed with the real secret', async () => {
    const { app, user } = await signedIn();
    const now = Math.floor(Date.now() / 1000);
    const base = () =>
      new SignJWT({ name: 'alice' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setAudience('tailcam-api')
        .setIssuer('tailcam');
    const expired = await base()
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 60)
      .sign(authSecret);
    const notYet = await base()
      .setIssuedAt(now)
      .setNotBefore(now + 3600)
      .setExpirationTime(now + 7200)
      .sign(authSecret);
    const noExpiry = await base().setIssuedAt(now).sign(authSecret);
    for (const token of [expired, notYet, noExpiry]) {
      expect(await tokenStatus(app, token)).toEqual({
        status: 401,
        body: { error: 'Invalid or expired token' },
      });
    }
    // Refused once is not remembered as good: a second try is refused again.
    expect((await tokenStatus(app, notYet)).status).toBe(401);
  });

  it('refuses a token that was valid once it expires, even though verified tokens are cached', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const test = await build({ deps: { now: () => now } });
    await test.addUser('alice', 'correct horse');
    const token = await test.login('alice', 'correct horse');
    expect((await tokenStatus(test.app, token)).status).toBe(200);
    now = new Date(now.getTime() + 12 * 3600 * 1000);
    expect((await tokenStatus(test.app, token)).status).toBe(401);
  });
});

describe("a disabled user's token", () => {
  it('stops working on the next request through the cached store, by the accounts API and by the admin socket', async () => {
    // As server.ts wires PGlite: user rows cached by id, cleared on every write through the store.
    const store = withUserCache(await freshStore());
    const { app, addUser, login } = await build({ deps: { store } });
    await addUser('alice', 'correct horse');
    await addUser('bob', 'battery staple');
    const alice = await login('alice', 'correct horse');
    const bob = await login('bob', 'battery staple');
    // Warm both caches (verified token, user row).
    for (let request = 0; request < 3; request += 1) {
      expect((await tokenStatus(app, alice)).status).toBe(200);
      expect((await tokenStatus(app, bob)).status).toBe(200);
    }

    await createAccounts(store).disable('alice');
    expect(await tokenStatus(app, alice)).toEqual({
      status: 401,
      body: { error: 'This account is disabled' },
    });

    // `npm run users -- disable bob` while the server runs goes through its admin socket.
    const dataDir = tempDir('tailcam-admin-');
    mkdirSync(dataDir, { recursive: true });
    const silent = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Parameters<
      typeof startAdminSocket
    >[2];
    const socket = await startAdminSocket(dataDir, createAccounts(store), silent);
    try {
      expect(await callAdminSocket(socket.path, { command: 'disable', username: 'bob' })).toEqual({
        ok: true,
      });
    } finally {
      await socket.close();
    }
    expect((await tokenStatus(app, bob)).status).toBe(401);
    // And neither can sign in again.
    for (const [username, password] of [
      ['alice', 'correct horse'],
      ['bob', 'battery staple'],
    ] as const) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { username, password },
      });
      expect(response.statusCode).toBe(401);
    }
  });
});

describe('participant tokens and login tokens are not interchangeable', () => {
  async function participantToken(stageId: string) {
    const test = await signedIn();
    const issued = await tokenStatus(test.app, test.token, { stageId, clientId: CLIENT_ID });
    expect(issued.status).toBe(200);
    // The stage's table of token generations, as the API would have sent it.
    const generations = new TokenGenerations({ loaded: true });
    generations.load({ [test.user.id]: test.user.tokenGeneration });
    return { ...test, participantToken: issued.body.token!, generations };
  }

  it('a participant token for one stage does not join another', async () => {
    const { participantToken: token, generations } = await participantToken('N743AS');
    // The protocol check the stage runs, asked for another stage.
    await expect(
      verifyParticipantToken(token, {
        secret: stageTokenSecret,
        stageId: 'N953AS',
        capability: 'subscribe',
      }),
    ).rejects.toMatchObject({ reason: 'not_allowed' });
    // The stage's join check takes the stage from the token: rewriting its topic breaks the signature.
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const moved = `${header}.${b64({ ...claims, topic: 'N953AS', resource: 'arn:tailcam:local:stage/N953AS' })}.${signature}`;
    await expect(
      verifyJoinToken(moved, { secret: stageTokenSecret, stageIds: STREAM_IDS, generations }),
    ).rejects.toMatchObject({ name: 'JoinRefusedError' });
    // A stage this process does not serve is refused even with a good signature.
    await expect(
      verifyJoinToken(token, {
        secret: stageTokenSecret,
        stageIds: ['N953AS', 'N954AS'],
        generations,
      }),
    ).rejects.toMatchObject({ name: 'JoinRefusedError' });
    // The untouched token joins the stage it names.
    await expect(
      verifyJoinToken(token, { secret: stageTokenSecret, stageIds: STREAM_IDS, generations }),
    ).resolves.toMatchObject({ topic: 'N743AS' });
  });

  it('a login token does not join a stage, and a participant token does not get participant tokens', async () => {
    const {
      app,
      token: loginToken,
      participantToken: token,
      generations,
    } = await participantToken('N743AS');
    await expect(
      verifyJoinToken(loginToken, { secret: stageTokenSecret, stageIds: STREAM_IDS, generations }),
    ).rejects.toMatchObject({ name: 'JoinRefusedError' });
    await expect(
      verifyParticipantToken(loginToken, {
        secret: authSecret,
        stageId: 'N743AS',
        capability: 'subscribe',
      }),
    ).rejects.toBeInstanceOf(ParticipantTokenError);
    // A login token re-signed with the stage secret and given a topic is still not a participant token.
    const claims = decodeJwt(loginToken);
    const disguised = await new SignJWT({ ...claims, topic: 'N743AS' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(stageTokenSecret);
    await expect(
      verifyJoinToken(disguised, { secret: stageTokenSecret, stageIds: STREAM_IDS, generations }),
    ).rejects.toMatchObject({ name: 'JoinRefusedError' });
    expect(await tokenStatus(app, token)).toEqual({
      status: 401,
      body: { error: 'Invalid or expired token' },
    });
  });
});

describe('a password change, a disable or a removal ends the login tokens issued before it', () => {
  it('through the cached store: accounts API and admin socket, effective on the next request', async () => {
    const store = withUserCache(await freshStore());
    // Every token below is issued within one second: the check must not rest on `iat`.
    const now = new Date('2026-03-01T12:00:00.000Z');
    const { app, addUser, login } = await build({ deps: { store, now: () => now } });
    await addUser('alice', 'correct horse');
    await addUser('bob', 'battery staple');
    await addUser('carol', 'staple battery');
    const ended: string[] = [];
    const accounts = createAccounts(store, {
      endSessions: async ({ userId }) => {
        ended.push(userId);
      },
    });
    const before = {
      alice: await login('alice', 'correct horse'),
      bob: await login('bob', 'battery staple'),
      carol: await login('carol', 'staple battery'),
    };
    for (let request = 0; request < 3; request += 1) {
      for (const token of Object.values(before))
        expect((await tokenStatus(app, token)).status).toBe(200);
    }

    await accounts.passwd('ALICE', 'new horse');
    expect(await tokenStatus(app, before.alice)).toEqual({
      status: 401,
      body: { error: 'Invalid or expired token' },
    });
    // Signing in again, in the same second, with the new password works.
    const after = await login('alice', 'new horse');
    expect((await tokenStatus(app, after)).status).toBe(200);
    expect((await tokenStatus(app, before.bob)).status).toBe(200);

    const dataDir = tempDir('tailcam-admin-');
    mkdirSync(dataDir, { recursive: true });
    const silent = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Parameters<
      typeof startAdminSocket
    >[2];
    const socket = await startAdminSocket(dataDir, accounts, silent);
    try {
      expect(
        await callAdminSocket(socket.path, { command: 'passwd', username: 'bob', password: 'x y' }),
      ).toEqual({ ok: true });
      expect((await tokenStatus(app, before.bob)).status).toBe(401);
      expect(await callAdminSocket(socket.path, { command: 'remove', username: 'carol' })).toEqual({
        ok: true,
      });
      expect((await tokenStatus(app, before.carol)).status).toBe(401);
      expect(await callAdminSocket(socket.path, { command: 'remove', username: 'carol' })).toEqual({
        ok: false,
        code: 'unknown_user',
        error: 'No user named "carol"',
      });
    } finally {
      await socket.close();
    }
    expect((await tokenStatus(app, after)).status).toBe(200);
    const ids = await Promise.all(
      ['alice', 'bob'].map(async (name) => (await store.findByUsername(name))!.id),
    );
    expect(ended.slice(0, 2)).toEqual(ids);
    expect(ended).toHaveLength(3);
    // carol is gone: she cannot sign in, and her name is free again.
    const gone = await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'carol', password: 'staple battery' },
    });
    expect(gone.statusCode).toBe(401);
  });

  it('a login that read the old password while the change went through gets a token that is refused', async () => {
    const store = await freshStore();
    const { app, addUser } = await build({ deps: { store } });
    const user = await addUser('alice', 'correct horse');
    const accounts = createAccounts(store);
    // The login's lookup happened before the change: its token carries what that row said.
    const row = await store.findById(user.id);
    await accounts.passwd('alice', 'new horse');
    const raced = await new SignJWT({ name: 'alice', gen: row!.tokenGeneration })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setAudience('tailcam-api')
      .setIssuer('tailcam')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(authSecret);
    expect((await tokenStatus(app, raced)).status).toBe(401);
  });
});

describe('login tokens from the future', () => {
  it('refuses a token whose iat is more than a minute ahead, accepts one within the allowance', async () => {
    const { app, user } = await signedIn();
    const now = Math.floor(Date.now() / 1000);
    const issuedAt = (iat: number) =>
      new SignJWT({ name: 'alice' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(user.id)
        .setAudience('tailcam-api')
        .setIssuer('tailcam')
        .setIssuedAt(iat)
        .setExpirationTime(iat + 3600)
        .sign(authSecret);
    expect(await tokenStatus(app, await issuedAt(now + 3600))).toEqual({
      status: 401,
      body: { error: 'Invalid or expired token' },
    });
    expect((await tokenStatus(app, await issuedAt(now + 90))).status).toBe(401);
    // Another API instance whose clock is a little ahead.
    expect((await tokenStatus(app, await issuedAt(now + 30))).status).toBe(200);
  });
});
