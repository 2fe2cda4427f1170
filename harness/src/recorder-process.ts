/**
 * The recorder `npm start` runs (local-stage/dist/recorder.js, docs/decisions/0072-recorder.md),
 * started and stopped by a test or the bench beside a product that runs without one
 * (`RECORDING=off`, as the harness starts it): it reads the product's stage secret from its data
 * directory and writes into its recordings, where its API lists them. Stopping it as
 * scripts/start.mjs does (SIGTERM) finishes the segments being written.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pollUntil } from './poll';
import { ROOT } from './root';

export interface RecorderProcess {
  pid: number;
  /** What it printed (JSON log lines). */
  log(): string;
  stop(): Promise<void>;
}

export async function startRecorderProcess(options: {
  dataDir: string;
  stagePort: number;
  env?: NodeJS.ProcessEnv;
}): Promise<RecorderProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'local-stage', 'dist', 'recorder.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: options.dataDir,
      STAGE_PORT: String(options.stagePort),
      RECORDING: 'all',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    if (gone()) return;
    child.kill('SIGTERM');
    const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killed);
  };
  const started = await pollUntil(
    () => gone() || /"msg":"recording (every|real)/.test(output),
    15_000,
  );
  if (!started || gone() || child.pid === undefined) {
    await stop();
    throw new Error(`the recorder did not start:\n${output.slice(-2_000)}`);
  }
  return { pid: child.pid, log: () => output, stop };
}
