import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { verifyParticipantToken } from '@tailcam/protocol/participant-token';
import { CLIENT_ID, stageTokenSecret } from '../test/helpers';
import { createLocalStageProvider } from './local-provider';
import { stageAccountHooks } from './stage-provider';

/** Stands in for the stage process's control route: records what it is asked, answers `reply`. */
async function stageControl(reply: { status: number; body: string }) {
  const requests: { method?: string; url?: string; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ method: request.method, url: request.url, body });
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const provider = (stageUrl: string) =>
  createLocalStageProvider({
    secret: stageTokenSecret,
    ttlMinutes: 60,
    publicUrl: undefined,
    stageUrl,
  });

describe('local stage provider: tokens', () => {
  it("signs the account's token generation into the viewer's token (the stage checks it)", async () => {
    const token = await provider('http://127.0.0.1:1').createParticipantToken({
      stageId: 'N743AS',
      userId: 'user-1',
      username: 'alice',
      tokenGeneration: 4,
      clientId: CLIENT_ID,
    });
    const claims = await verifyParticipantToken(token, {
      secret: stageTokenSecret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    expect(claims).toMatchObject({ user_id: 'user-1', gen: 4 });
    expect(claims).not.toHaveProperty('ice_servers');
  });

  it("gives the token TURN credentials for the user, valid for the configured minutes (coturn's REST scheme)", async () => {
    const turnSecret = 'a-turn-secret-of-at-least-32-characters';
    const token = await createLocalStageProvider({
      secret: stageTokenSecret,
      ttlMinutes: 60,
      publicUrl: undefined,
      stageUrl: 'http://127.0.0.1:1',
      turn: {
        urls: ['turn:turn.example:3478?transport=tcp', 'turns:turn.example:5349?transport=tcp'],
        secret: turnSecret,
        credentialMinutes: 90,
      },
    }).createParticipantToken({
      stageId: 'N743AS',
      userId: 'user-1',
      username: 'alice',
      tokenGeneration: 0,
      clientId: CLIENT_ID,
    });
    const claims = await verifyParticipantToken(token, {
      secret: stageTokenSecret,
      stageId: 'N743AS',
      capability: 'subscribe',
    });
    const [server, ...others] = claims.ice_servers ?? [];
    expect(others).toEqual([]);
    expect(server?.urls).toEqual([
      'turn:turn.example:3478?transport=tcp',
      'turns:turn.example:5349?transport=tcp',
    ]);
    const [expiry, userId] = (server?.username ?? '').split(':');
    expect(userId).toBe('user-1');
    expect(Number(expiry) - claims.iat).toBe(90 * 60);
    expect(server?.credential).toBe(
      createHmac('sha1', turnSecret)
        .update(server?.username ?? '')
        .digest('base64'),
    );
  });
});

describe('local stage provider: ending a user’s sessions', () => {
  it("posts the user id and new token generation to the stage's loopback control route and reads how many ended", async () => {
    const stage = await stageControl({ status: 200, body: '{"ended":2}' });
    const change = { userId: 'user-1', tokenGeneration: 3 };
    expect(await provider(stage.url).endUserSessions(change)).toBe(2);
    expect(stage.requests).toEqual([
      {
        method: 'POST',
        url: '/_control/end-user-sessions',
        body: '{"userId":"user-1","tokenGeneration":3}',
      },
    ]);
  });

  it("posts a new account's token generation to the stage's table", async () => {
    const stage = await stageControl({
      status: 200,
      body: '{"loaded":true,"users":4,"stageRun":"run-1"}',
    });
    await provider(stage.url).accountAdded({ userId: 'user-2', tokenGeneration: 0 });
    expect(stage.requests).toEqual([
      {
        method: 'POST',
        url: '/_control/token-generations',
        body: '{"userId":"user-2","tokenGeneration":0}',
      },
    ]);
  });

  it('fails on an answer that is not the stage’s, and the accounts’ hooks report it instead of throwing', async () => {
    const stage = await stageControl({ status: 404, body: '{"error":"Not found"}' });
    const change = { userId: 'user-1', tokenGeneration: 1 };
    await expect(provider(stage.url).endUserSessions(change)).rejects.toThrow(/answered 404/);
    const reports: unknown[] = [];
    const report = {
      ended: (userId: string, count: number) => reports.push({ userId, count }),
      failed: (userId: string) => reports.push({ failed: userId }),
    };
    const hooks = stageAccountHooks(provider(stage.url), report);
    await hooks.endSessions(change);
    await hooks.accountAdded({ userId: 'user-3', tokenGeneration: 0 });
    await stageAccountHooks(provider('http://127.0.0.1:1'), report).endSessions({
      userId: 'user-2',
      tokenGeneration: 1,
    });
    expect(reports).toEqual([{ failed: 'user-1' }, { failed: 'user-3' }, { failed: 'user-2' }]);
  });
});
