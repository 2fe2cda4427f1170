/**
 * The recorder's long poll at the stage (decision 0078): `GET /_control/on-air` answers who is on
 * air, whether a person watches each aircraft (decision 0084: nobody here; a person and the
 * thumbnail process: recording-what-a-person-watches.test.ts) and its version at once, holds a question that names the current version until the wait is
 * up (a change answers it at once: recorder.test.ts), and refuses a bad `since` or `wait`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onAirAnswer } from '../../control';
import { rawRequest } from '../../testing/raw-request';
import { startLocalStage, type RunningStage } from '../start';

const secret = new TextEncoder().encode('a-local-stage-test-secret-of-enough-length');
let running: RunningStage;

beforeAll(async () => {
  running = await startLocalStage({ host: '127.0.0.1', port: 0, secret, faultsEnabled: false });
});

afterAll(() => running.close());

async function ask(path: string, method = 'GET') {
  const started = performance.now();
  const answer = await rawRequest(running.url, method, path, {});
  return { status: answer.status, text: answer.text, ms: performance.now() - started };
}

describe('GET /_control/on-air', () => {
  it('answers at once without a version, holds one that is current, and refuses bad input', async () => {
    const first = await ask('/_control/on-air');
    expect(first.status).toBe(200);
    const { version, publishers, watched } = onAirAnswer.parse(JSON.parse(first.text));
    expect(publishers).toMatchObject({ N743AS: 'none', N953AS: 'none', N954AS: 'none' });
    expect(watched).toMatchObject({ N743AS: false, N953AS: false, N954AS: false });
    expect(first.ms).toBeLessThan(1_500);

    const stale = await ask(`/_control/on-air?since=${String(version + 1)}&wait=2`);
    expect(stale.ms).toBeLessThan(1_500);
    const held = await ask(`/_control/on-air?since=${String(version)}&wait=2`);
    expect(onAirAnswer.parse(JSON.parse(held.text)).version).toBe(version);
    expect(held.ms).toBeGreaterThanOrEqual(1_900);

    for (const query of ['since=1&wait=61', 'since=1&wait=soon', 'since=-1&wait=2', 'since=x']) {
      const answer = await ask(`/_control/on-air?${query}`);
      expect(answer.status, query).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({
        error: 'since must be a whole number and wait whole seconds, 1 to 60',
      });
    }
    expect((await ask('/_control/on-air', 'POST')).status).toBe(405);
  });
});
