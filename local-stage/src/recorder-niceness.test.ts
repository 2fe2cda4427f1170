/**
 * The recorder process's priority (decision 0111): by default the one it was started with, the
 * stage's and the cameras' (a recorder starved of CPU loses what it records); RECORDING_NICE
 * lowers it. Read from /proc as the kernel schedules it, while the recorder runs (no stage
 * answers it here: it starts all the same and keeps asking).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { waitUntil } from './testing/wait-until';

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

/** The niceness of the running recorder, once it says it records. */
async function recorderNiceness(env: Record<string, string>): Promise<number> {
  dataDir = mkdtempSync(join(tmpdir(), 'tailcam-recorder-nice-'));
  const recorder = spawn(process.execPath, ['--import', 'tsx', 'src/recorder-main.ts'], {
    cwd: join(import.meta.dirname, '..'),
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      // Nothing listens there: the recorder starts and keeps asking.
      STAGE_PORT: '9',
      STAGE_TOKEN_SECRET: 'a-recorder-niceness-test-secret-of-enough-length',
      RECORDING: 'all',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = recorder;
  let output = '';
  recorder.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  recorder.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitUntil(
    () => /"msg":"recording every publisher/.test(output),
    'the recorder started',
    20_000,
  );
  // /proc/<pid>/stat: the 19th field is the niceness (after the command in parentheses).
  const stat = readFileSync(`/proc/${recorder.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[16]);
}

it.skipIf(process.platform !== 'linux')(
  "runs at the priority it was started with by default, the stage's",
  async () => {
    expect(await recorderNiceness({})).toBe(getPriority());
  },
  30_000,
);

it.skipIf(process.platform !== 'linux')(
  'runs lower with RECORDING_NICE',
  async () => {
    const asked = Math.max(getPriority() + 1, 7);
    expect(await recorderNiceness({ RECORDING_NICE: String(asked) })).toBe(asked);
  },
  30_000,
);
