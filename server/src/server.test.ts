import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkApi, type ApiProcess } from './test/api-process';
import { bundleEntry } from './test/bundle';
import { tempDir } from './test/helpers';

let bundledServer: { file: string; remove(): void };

beforeAll(async () => {
  bundledServer = await bundleEntry('src/server.ts');
});
afterAll(() => bundledServer?.remove());

function start(env: Record<string, string>): ApiProcess {
  return forkApi(bundledServer.file, { LOG_LEVEL: 'warn', ...env });
}

describe('server process', () => {
  it('creates a demo viewer, reports it and its address over IPC, serves, and stops cleanly on SIGINT + SIGTERM', async () => {
    const dataDir = join(tempDir('tailcam-server-'), 'data');
    const { child, messages, output, exited } = start({ DATA_DIR: dataDir });
    await expect
      .poll(() => messages.map((message) => message.type), { timeout: 45_000 })
      .toContain('listening');
    // First of all, before the database opens: the orchestrator starts the local stage on this.
    expect(messages[0]).toEqual({ type: 'configured', stageProvider: 'local' });
    const demo = messages.find((message) => message.type === 'demo-viewer');
    expect(demo).toMatchObject({ username: 'demo', password: expect.stringMatching(/^.{20,}$/) });
    // With IPC, the credentials go to the parent only: not to stdout, not into the logs.
    expect(output()).not.toContain(String(demo?.password));
    const url = String(messages.find((message) => message.type === 'listening')?.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    const login = await fetch(`${url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: demo?.password }),
    });
    expect(login.status).toBe(200);
    expect(existsSync(join(dataDir, 'admin.sock'))).toBe(true);
    expect(existsSync(join(dataDir, 'stage-token-secret'))).toBe(true);

    // Ctrl-C: SIGINT to the whole group, then the orchestrator's SIGTERM; still a clean stop.
    child.kill('SIGINT');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'admin.sock'))).toBe(false);
  });

  it('with STAGE_PROVIDER=ivs reports it, creates no demo viewer, and serves', async () => {
    const arn = (id: string) => `arn:aws:ivs:us-east-1:123456789012:stage/${id}0000000000`;
    const { child, messages, exited } = start({
      DATA_DIR: join(tempDir('tailcam-server-'), 'data'),
      STAGE_PROVIDER: 'ivs',
      AUTH_SECRET: 'x'.repeat(48),
      AWS_REGION: 'us-east-1',
      IVS_STAGE_ARNS: `N743AS=${arn('AA')},N953AS=${arn('BB')},N954AS=${arn('CC')}`,
    });
    await expect
      .poll(() => messages.map((message) => message.type), { timeout: 45_000 })
      .toContain('listening');
    expect(messages.map((message) => message.type)).toEqual(['configured', 'listening']);
    expect(messages[0]).toEqual({ type: 'configured', stageProvider: 'ivs' });
    const url = String(messages[1]?.url);
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses to start with a readable list of what is wrong in the configuration', async () => {
    const { output, exited } = start({
      DATA_DIR: tempDir(),
      STAGE_PROVIDER: 'ivs',
      PORT: 'http',
    });
    // 2: `npm start` does not restart an API whose configuration is wrong.
    expect(await exited).toBe(2);
    expect(output()).toContain('Invalid configuration:');
    expect(output()).toContain('  - PORT: must be a whole number between 0 and 65535');
    expect(output()).toContain('  - AWS_REGION: required with STAGE_PROVIDER=ivs');
  });
});
