import { afterEach, describe, expect, it } from 'vitest';
import { verifyStageControlToken } from '@tailcam/protocol/stage-control';
import { stageTokenSecret } from '../test/helpers';
import { startStandInStage, type StandInStage } from '../test/stand-in-stage';
import { TokenGenerationSync, type TokenGenerationSyncOptions } from './token-generation-sync';

const syncs: TokenGenerationSync[] = [];

afterEach(async () => {
  for (const sync of syncs.splice(0)) await sync.close();
});

/**
 * A stand-in for the stage's `/_control/token-generations`: it has a table once one is PUT, and
 * says which run of the stage it is.
 */
async function stageWithTable(): Promise<
  StandInStage & { state: { loaded: boolean; run: string }; puts: () => unknown[] }
> {
  const state = { loaded: false, run: 'run-1' };
  const stage = await startStandInStage((request, res) => {
    if (request.method === 'PUT') state.loaded = true;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ loaded: state.loaded, users: 1, stageRun: state.run }));
  });
  return Object.assign(stage, {
    state,
    puts: () =>
      stage.received
        .filter((request) => request.method === 'PUT')
        .map((request) => JSON.parse(request.body.toString()) as unknown),
  });
}

function sync(options: Partial<TokenGenerationSyncOptions> & { stageUrl: string }) {
  const lines: string[] = [];
  const { stageUrl, ...rest } = options;
  const started = new TokenGenerationSync({
    stage: { url: stageUrl, secret: stageTokenSecret },
    readTable: async () => ({ 'user-1': 2 }),
    log: {
      info: (_details, message) => lines.push(`info ${message}`),
      warn: (_details, message) => lines.push(`warn ${message}`),
    },
    pollMs: 10,
    ...rest,
  });
  syncs.push(started);
  started.start();
  return { sync: started, lines };
}

describe('TokenGenerationSync', () => {
  it('sends the whole table when the stage has none, and again when it restarts without one', async () => {
    const stage = await stageWithTable();
    const { lines } = sync({ stageUrl: stage.url });
    await expect.poll(() => stage.puts()).toEqual([{ generations: { 'user-1': 2 } }]);
    // While the stage has the table, only the cheap question is asked.
    const asked = stage.received.length;
    await expect.poll(() => stage.received.length).toBeGreaterThan(asked + 3);
    expect(stage.puts()).toHaveLength(1);

    stage.state.loaded = false; // a restarted stage
    await expect.poll(() => stage.puts()).toHaveLength(2);
    expect(lines).toEqual([
      "info sent the accounts' token generations to the local stage",
      "info sent the accounts' token generations to the local stage",
    ]);
  });

  it('sends its table once when it starts, even to a stage that has one (changes made while no API ran), as each instance does', async () => {
    const stage = await stageWithTable();
    stage.state.loaded = true;
    sync({ stageUrl: stage.url, readTable: async () => ({ 'user-1': 3 }) });
    sync({ stageUrl: stage.url, readTable: async () => ({ 'user-1': 3, 'user-2': 0 }) });
    await expect.poll(() => stage.puts()).toHaveLength(2);
    expect(stage.puts()).toEqual(
      expect.arrayContaining([
        { generations: { 'user-1': 3 } },
        { generations: { 'user-1': 3, 'user-2': 0 } },
      ]),
    );
    const asked = stage.received.length;
    await expect.poll(() => stage.received.length).toBeGreaterThan(asked + 3);
    expect(stage.puts()).toHaveLength(2);
  });

  it('sends the whole table at once to a restarted stage that someone else loaded (an empty table locks no account out)', async () => {
    const stage = await stageWithTable();
    let now = 0;
    sync({ stageUrl: stage.url, now: () => now });
    await expect.poll(() => stage.puts()).toHaveLength(1);
    now = 1_000; // well inside RESEND_MS
    // The stage restarted and another caller loaded it with an empty table before this API asked.
    stage.state.run = 'run-2';
    await expect.poll(() => stage.puts()).toHaveLength(2);
    expect(stage.puts()[1]).toEqual({ generations: { 'user-1': 2 } });
  });

  it("carries the API's control token, signed with the stage's secret, on every call", async () => {
    const stage = await stageWithTable();
    sync({ stageUrl: stage.url });
    await expect.poll(() => stage.puts()).toHaveLength(1);
    for (const request of stage.received) {
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      expect(await verifyStageControlToken(token, stageTokenSecret), request.url).toBe(true);
    }
  });

  it('sends it again every RESEND_MS, and at the next poll when a change could not be sent', async () => {
    const stage = await stageWithTable();
    let now = 0;
    const { sync: running } = sync({ stageUrl: stage.url, resendMs: 60_000, now: () => now });
    await expect.poll(() => stage.puts()).toHaveLength(1);
    now = 60_000;
    await expect.poll(() => stage.puts()).toHaveLength(2);
    running.resendSoon();
    await expect.poll(() => stage.puts()).toHaveLength(3);
  });

  it('asks a stage that holds its answer (the long poll) once per hold, and lets go of the hold for a change to send', async () => {
    const state = { loaded: false };
    const stage = await startStandInStage((request, res) => {
      if (request.method === 'PUT') state.loaded = true;
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ loaded: state.loaded, users: 1, stageRun: 'run-1' }));
      };
      const wait = /[?&]wait=(\d+)/.exec(request.url)?.[1];
      if (request.method === 'GET' && state.loaded && wait) setTimeout(answer, Number(wait) * 1000);
      else answer();
    });
    const { sync: running } = sync({ stageUrl: stage.url, pollMs: 50, holdSeconds: 30 });
    const puts = () => stage.received.filter((request) => request.method === 'PUT').length;
    await expect.poll(puts).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Held: one question in a second, where a 50 ms poll would have asked ~20.
    const gets = stage.received.filter((request) => request.method === 'GET');
    expect(gets.length).toBeLessThanOrEqual(3);
    expect(gets.at(-1)?.url).toBe('/_control/token-generations?wait=30&run=run-1');

    const asked = performance.now();
    running.resendSoon();
    await expect.poll(puts).toBe(2);
    expect(performance.now() - asked).toBeLessThan(5_000);
  });

  it('waits quietly for a stage that is not up yet, and says once that a table could not be sent', async () => {
    const down = sync({ stageUrl: 'http://127.0.0.1:1' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(down.lines).toEqual([]);

    const stage = await stageWithTable();
    let failures = 2;
    const { lines } = sync({
      stageUrl: stage.url,
      readTable: async () => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('the database is unavailable');
        }
        return {};
      },
    });
    await expect.poll(() => stage.puts()).toEqual([{ generations: {} }]);
    expect(lines).toEqual([
      "warn could not send the accounts' token generations to the local stage; retrying",
      "info sent the accounts' token generations to the local stage",
    ]);
  });
});
