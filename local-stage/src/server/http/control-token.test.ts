/**
 * The stage's control routes take the API's control token, not only loopback (decision 0082):
 * a process of the host without the stage's secret cannot raise, grow or load the table of token
 * generations, end anyone's sessions or keep the cameras awake; the table has a bound, and a
 * generation the API can never have is refused.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  issueStageControlToken,
  MAX_TOKEN_GENERATION,
  MAX_TOKEN_GENERATION_ACCOUNTS,
} from '@tailcam/protocol/stage-control';
import { issueCameraLinkToken } from '../../camera-link';
import { callStage, stagesAwaitingTable } from '../../testing/stage-awaiting-table';

const secret = new TextEncoder().encode('a-control-token-test-secret-of-enough-length');
const otherSecret = new TextEncoder().encode('another-secret-that-is-not-the-stage-one');
const stages = stagesAwaitingTable(secret);

describe("the stage's control routes", () => {
  it("refuse a caller without the API's token, with a wrong one or with the camera link's, and change nothing", async () => {
    const stage = await stages.start();
    const present = vi.spyOn(stage.stage, 'viewerPresent');
    const ended = vi.spyOn(stage.stage, 'endUserSessions');
    const wrong = [
      undefined,
      'Bearer',
      'Bearer not-a-token',
      `Bearer ${await issueStageControlToken(otherSecret)}`,
      `Bearer ${await issueCameraLinkToken(secret)}`,
      `Basic ${await issueStageControlToken(secret)}`,
      // Expired: issued two minutes ago.
      `Bearer ${await issueStageControlToken(secret, new Date(Date.now() - 120_000))}`,
    ];
    const calls: [string, string, unknown][] = [
      ['GET', '/_control/token-generations', undefined],
      ['PUT', '/_control/token-generations', { generations: {} }],
      ['POST', '/_control/token-generations', { userId: 'alice', tokenGeneration: 9 }],
      ['POST', '/_control/end-user-sessions', { userId: 'alice', tokenGeneration: 9 }],
      ['POST', '/_control/presence', undefined],
    ];
    for (const authorization of wrong) {
      for (const [method, path, body] of calls) {
        const answer = await callStage(stage, method, path, body, authorization);
        expect(answer, `${method} ${path} with ${String(authorization)}`).toEqual({
          status: 401,
          text: JSON.stringify({
            error: "The stage's control routes need the API's control token",
          }),
          authenticate: 'Bearer',
        });
      }
    }
    expect(present).not.toHaveBeenCalled();
    expect(ended).not.toHaveBeenCalled();
    expect(stage.stage.generations.loaded).toBe(false);
    expect(stage.stage.generations.users).toBe(0);

    // The API's own token opens them.
    const presence = await callStage(
      stage,
      'POST',
      '/_control/presence',
      undefined,
      await stages.asTheApi(),
    );
    expect(presence.status).toBe(200);
    expect(present).toHaveBeenCalledTimes(1);
  });

  it('refuse a table or a new account past the bound with 413, changing nothing', async () => {
    const stage = await stages.start();
    const put = (generations: Record<string, number>) => stages.loadTable(stage, generations);
    const table = (count: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}-${index}`, 0]));

    const over = await put(table(MAX_TOKEN_GENERATION_ACCOUNTS + 1, 'made-up'));
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toEqual({
      error: `The table of token generations holds at most ${MAX_TOKEN_GENERATION_ACCOUNTS} accounts`,
    });
    expect(stage.stage.generations.loaded).toBe(false);
    expect(stage.stage.generations.users).toBe(0);

    // A full table: a new account past it is refused, the table as it was.
    expect((await put(table(MAX_TOKEN_GENERATION_ACCOUNTS, 'real'))).status).toBe(200);
    const added = await callStage(
      stage,
      'POST',
      '/_control/token-generations',
      { userId: 'one-more', tokenGeneration: 0 },
      await stages.asTheApi(),
    );
    expect(added.status).toBe(413);
    expect(stage.stage.generations.users).toBe(MAX_TOKEN_GENERATION_ACCOUNTS);

    // Tables of other names one after another never take it past the bound.
    expect((await put(table(MAX_TOKEN_GENERATION_ACCOUNTS, 'next'))).status).toBe(200);
    expect(stage.stage.generations.users).toBe(MAX_TOKEN_GENERATION_ACCOUNTS);
    expect(stage.stage.generations.verdict('next-7', 0)).toBe('current');
    expect(stage.stage.generations.verdict('real-7', 0)).toBe('unknown-user');
  });

  it('refuse a generation the API can never have (above its integer column), keeping the entry', async () => {
    const stage = await stages.start();
    const authorization = await stages.asTheApi();
    await stages.loadTable(stage, { alice: 3 });
    for (const [method, path, body] of [
      ['PUT', '/_control/token-generations', { generations: { alice: MAX_TOKEN_GENERATION + 1 } }],
      ['POST', '/_control/token-generations', { userId: 'alice', tokenGeneration: 2 ** 53 - 1 }],
      ['POST', '/_control/end-user-sessions', { userId: 'alice', tokenGeneration: 2 ** 53 - 1 }],
    ] as const) {
      expect((await callStage(stage, method, path, body, authorization)).status, path).toBe(400);
    }
    expect(stage.stage.generations.verdict('alice', 3)).toBe('current');
  });

  it('answer the long poll at once when the API sent its table to another run of the stage (a restart)', async () => {
    const stage = await stages.start();
    const authorization = await stages.asTheApi();
    // Loaded by someone else after a restart: the API's table went to the run before.
    await stages.loadTable(stage, {});
    const started = performance.now();
    const answer = await callStage(
      stage,
      'GET',
      '/_control/token-generations?wait=2&run=the-run-before',
      undefined,
      authorization,
    );
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(JSON.parse(answer.text)).toMatchObject({ stageRun: stage.stage.generations.run });
  });
});
