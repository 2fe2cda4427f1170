/**
 * How `npm start` (scripts/start.mjs) prints its processes' logs: through pino-pretty for a person
 * (on a terminal while LOG_FORMAT is unset, or with LOG_FORMAT=pretty), else the processes' own
 * JSON lines. A stand-in API prints one record with the LOG_FORMAT it was given, then a line that
 * is not JSON. The terminal is a pseudo-terminal of util-linux's `script`; elsewhere the output is
 * a pipe, so there "unset" is the pipe's case.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './root';

const dir = mkdtempSync(join(tmpdir(), 'tailcam-start-log-'));
const fakeApi = join(dir, 'fake-api.mjs');
writeFileSync(
  fakeApi,
  `console.log(JSON.stringify({ level: 30, time: Date.now(), service: 'tailcam-api', msg: 'stand-in API up', given: process.env.LOG_FORMAT ?? 'unset' }));
console.log('stand-in API: a line that is not JSON');
setInterval(() => {}, 1000);
`,
);

/** What each test started, and how to stop it. */
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves once `child` has exited, after SIGTERM to the process `target` names. */
function stopped(child: ChildProcess, target: () => number | undefined): Promise<void> {
  return new Promise((exited) => {
    if (child.exitCode !== null || child.signalCode !== null) return exited();
    child.once('exit', () => exited());
    const pid = target();
    if (pid !== undefined) process.kill(pid, 'SIGTERM');
  });
}

/** The process `script` runs on its terminal: scripts/start.mjs. */
function scriptChild(script: ChildProcess): number | undefined {
  const pid = script.pid;
  if (pid === undefined) return undefined;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return children === '' ? undefined : Number(children.split(' ')[0]);
}

/**
 * scripts/start.mjs with the stand-in API, LOG_FORMAT as given, into a pipe or on a terminal:
 * what it printed once the stand-in's two lines are there, lines ending in \n.
 */
async function printed(logFormat: string | undefined, on: 'pipe' | 'terminal'): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, TAILCAM_API_ENTRY: fakeApi };
  delete env.LOG_FORMAT;
  if (logFormat !== undefined) env.LOG_FORMAT = logFormat;
  const [command, args] =
    on === 'terminal'
      ? ['script', ['--quiet', '--command', `'${process.execPath}' scripts/start.mjs`, '/dev/null']]
      : [process.execPath, ['scripts/start.mjs']];
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // On a terminal, start.mjs is stopped itself, as Ctrl-C would: `script` then ends with it at
  // once, where SIGTERM to `script` would wait 2 s before its SIGKILL.
  stops.push(() => stopped(child, () => (on === 'terminal' ? scriptChild(child) : child.pid)));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await expect.poll(() => output, { timeout: 10_000 }).toContain('a line that is not JSON');
  return output.replaceAll('\r\n', '\n');
}

/** The line of `output` that mentions the stand-in API's record. */
const recordLine = (output: string) =>
  output.split('\n').find((line) => line.includes('stand-in API up')) ?? '';

// eslint-disable-next-line no-control-regex -- the terminal's colour sequences are what is removed
const withoutColour = (text: string) => text.replace(/\x1b\[\d+m/g, '');

describe('npm start prints its processes log lines', () => {
  it('as JSON lines into a pipe while LOG_FORMAT is unset', async () => {
    const line = recordLine(await printed(undefined, 'pipe'));
    expect(JSON.parse(line)).toMatchObject({ msg: 'stand-in API up', given: 'unset' });
  });

  it('as JSON lines with LOG_FORMAT=json', async () => {
    const line = recordLine(await printed('json', 'pipe'));
    expect(JSON.parse(line)).toMatchObject({ msg: 'stand-in API up', given: 'json' });
  });

  it('through pino-pretty with LOG_FORMAT=pretty, the process writing JSON to it', async () => {
    const line = recordLine(await printed('pretty', 'pipe'));
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: api stand-in API up \{"given":"json"\}$/,
    );
  });

  it('through pino-pretty in colour on a terminal while LOG_FORMAT is unset', async () => {
    const output = await printed(undefined, 'terminal');
    const line = recordLine(output);
    expect(line).toContain('\x1b[');
    expect(withoutColour(line)).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: api stand-in API up \{"given":"json"\}$/,
    );
  });

  it.each(['pipe', 'terminal'] as const)(
    'with a line that is not JSON as the process wrote it (pretty lines, %s)',
    async (on) => {
      const output = await printed(on === 'pipe' ? 'pretty' : undefined, on);
      expect(output.split('\n')).toContain('stand-in API: a line that is not JSON');
    },
  );
});
