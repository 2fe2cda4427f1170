import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stageTokenSecret } from '../test/helpers';
import { createLocalStageProvider } from './local-provider';
import { sessionEnder } from './stage-provider';

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

describe('local stage provider: ending a user’s sessions', () => {
  it("posts the user id to the stage's loopback control route and reads how many ended", async () => {
    const stage = await stageControl({ status: 200, body: '{"ended":2}' });
    expect(await provider(stage.url).endUserSessions('user-1')).toBe(2);
    expect(stage.requests).toEqual([
      { method: 'POST', url: '/_control/end-user-sessions', body: '{"userId":"user-1"}' },
    ]);
  });

  it('fails on an answer that is not the stage’s, and the accounts’ ender reports it instead of throwing', async () => {
    const stage = await stageControl({ status: 404, body: '{"error":"Not found"}' });
    await expect(provider(stage.url).endUserSessions('user-1')).rejects.toThrow(/answered 404/);
    const reports: unknown[] = [];
    const end = sessionEnder((userId) => provider(stage.url).endUserSessions(userId), {
      ended: (userId, count) => reports.push({ userId, count }),
      failed: (userId) => reports.push({ failed: userId }),
    });
    await end('user-1');
    await sessionEnder((userId) => provider('http://127.0.0.1:1').endUserSessions(userId), {
      ended: (userId, count) => reports.push({ userId, count }),
      failed: (userId) => reports.push({ failed: userId }),
    })('user-2');
    expect(reports).toEqual([{ failed: 'user-1' }, { failed: 'user-2' }]);
  });
});
