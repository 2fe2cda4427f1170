/**
 * `POST /_control/end-user-sessions`: the API ended a user's sign-in (password changed, account
 * disabled or removed), and that user's stage sessions end at once, as IVS ends a disconnected
 * participant's. Always on (no STAGE_FAULTS), loopback only, never reachable under /stage/.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueStageControlToken } from '@tailcam/protocol/stage-control';
import { startTestStage } from '../../testing/test-stage';
import { NodeViewer } from '../../testing/node-viewer';
import { testParticipantToken } from '../../testing/participant-tokens';
import type { RunningStage } from '../start';

const secret = new TextEncoder().encode('a-local-stage-test-secret-of-enough-length');
let running: RunningStage;
const viewers: NodeViewer[] = [];
let participants = 0;

beforeAll(async () => {
  running = await startTestStage({ secret });
});

afterAll(async () => {
  for (const viewer of viewers) viewer.close();
  await running.close();
});

async function joinedViewer(userId: string, stageId = 'N743AS'): Promise<NodeViewer> {
  participants += 1;
  const token = await testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId: `viewer-${participants}`,
    stageId,
    userId,
    attributes: { clientId: `client-${participants}` },
  });
  const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
  viewers.push(viewer);
  expect(await viewer.join(token)).toMatchObject({ type: 'joined' });
  return viewer;
}

/**
 * A request with the path sent exactly as given (fetch would normalise it first), with the API's
 * control token (decision 0082).
 */
async function rawPost(path: string, body: string): Promise<{ status?: number; body: string }> {
  const { hostname, port } = new URL(running.url);
  const authorization = `Bearer ${await issueStageControlToken(secret)}`;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: hostname,
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('POST /_control/end-user-sessions', () => {
  it("ends every session of that user with participant-disconnected, and no one else's, without STAGE_FAULTS", async () => {
    const first = await joinedViewer('user-a', 'N743AS');
    const second = await joinedViewer('user-a', 'N953AS');
    const other = await joinedViewer('user-b', 'N743AS');

    const answer = await rawPost(
      '/_control/end-user-sessions',
      JSON.stringify({ userId: 'user-a' }),
    );
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ ended: 2 }) });
    for (const viewer of [first, second]) {
      await viewer.waitFor(() => viewer.closed !== undefined, 'the session to end');
      expect(viewer.messages).toContainEqual({ type: 'left', reason: 'participant-disconnected' });
      expect(viewer.closed).toEqual({ code: 1000, reason: 'participant-disconnected' });
    }
    expect(other.closed).toBeUndefined();
    expect(running.stage.stats().participants).toHaveLength(1);

    const again = await rawPost(
      '/_control/end-user-sessions',
      JSON.stringify({ userId: 'user-a' }),
    );
    expect(again).toEqual({ status: 200, body: JSON.stringify({ ended: 0 }) });
    other.close();
  });

  it('refuses a body without a user id, and any method but POST', async () => {
    expect((await rawPost('/_control/end-user-sessions', '{}')).status).toBe(400);
    expect((await rawPost('/_control/end-user-sessions', 'not json')).status).toBe(400);
    const get = await fetch(`${running.url}/_control/end-user-sessions`, {
      headers: { authorization: `Bearer ${await issueStageControlToken(secret)}` },
    });
    expect(get.status).toBe(405);
  });

  it('is not reachable by a path the API would proxy (under /stage/), however it is spelled', async () => {
    const viewer = await joinedViewer('user-c');
    const body = JSON.stringify({ userId: 'user-c' });
    for (const sneaky of [
      '/stage/_control/end-user-sessions',
      '/stage/../_control/end-user-sessions',
      '/stage/%2e%2e/_control/end-user-sessions',
      '/stage/%2E%2E/_control/end-user-sessions',
      '/stage/..%2f_control/end-user-sessions',
      '/stage//_control/end-user-sessions',
      '/stage/%5c..%5c_control/end-user-sessions',
    ]) {
      expect((await rawPost(sneaky, body)).status, sneaky).toBe(404);
    }
    expect(viewer.closed).toBeUndefined();
    viewer.close();
  });
});
