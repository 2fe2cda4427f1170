/**
 * How `npm start` (scripts/start.mjs) prints its processes' logs: through pino-pretty for a person
 * (LOG_FORMAT=pretty, or LOG_FORMAT unset on a terminal), else the processes' own JSON lines. A
 * stand-in API prints one record and the LOG_FORMAT it was given; its output is a pipe here, so
 * "unset" is the pipe's case.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './root';

const dir = mkdtempSync(join(tmpdir(), 'tailcam-start-log-'));
const fakeApi = join(dir, 'fake-api.mjs');
writeFileSync(
  fakeApi,
  `console.log(JSON.stringify({ level: 30, time: Date.now(), service: 'tailcam-api', msg: 'stand-in API up', given: process.env.LOG_FORMAT ?? 'unset' }));
setInterval(() => {}, 1000);
`,
);

const started: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(
    started.splice(0).map(
      (child) =>
        new Promise<void>((exited) => {
          if (child.exitCode !== null || child.signalCode !== null) return exited();
          child.once('exit', () => exited());
          child.kill('SIGTERM');
        }),
    ),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** scripts/start.mjs with the stand-in API, until its first line mentioning the stand-in. */
async function firstLine(logFormat: string | undefined): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, TAILCAM_API_ENTRY: fakeApi };
  delete env.LOG_FORMAT;
  if (logFormat !== undefined) env.LOG_FORMAT = logFormat;
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await expect.poll(() => output, { timeout: 10_000 }).toContain('stand-in API up');
  return output.split('\n').find((line) => line.includes('stand-in API up')) ?? '';
}

describe('npm start prints its processes log lines', () => {
  it('as JSON lines into a pipe while LOG_FORMAT is unset', async () => {
    const line = await firstLine(undefined);
    expect(JSON.parse(line)).toMatchObject({ msg: 'stand-in API up', given: 'unset' });
  });

  it('as JSON lines with LOG_FORMAT=json', async () => {
    const line = await firstLine('json');
    expect(JSON.parse(line)).toMatchObject({ msg: 'stand-in API up', given: 'json' });
  });

  it('through pino-pretty with LOG_FORMAT=pretty, the process writing JSON to it', async () => {
    const line = await firstLine('pretty');
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: api stand-in API up \{"given":"json"\}$/,
    );
  });
});
