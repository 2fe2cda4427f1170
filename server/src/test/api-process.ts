/**
 * The API as `npm start` runs it: its bundle (bundle.ts) forked with an IPC channel, on a free
 * port of its own and a free metrics port, without PostgreSQL unless `env` names one.
 */
import { fork, type ChildProcess } from 'node:child_process';

export interface ApiMessage {
  type: string;
  [key: string]: unknown;
}

export interface ApiProcess {
  child: ChildProcess;
  /** What it said over IPC, in order. */
  messages: ApiMessage[];
  /** Its stdout and stderr so far. */
  output(): string;
  /** Its URL once it says it listens; rejects (with its output) if it exits first. */
  listening: Promise<string>;
  /** Its exit code. */
  exited: Promise<number | null>;
  /** SIGTERM (unless it has exited), then its exit. */
  stop(): Promise<void>;
}

export function forkApi(file: string, env: Record<string, string>): ApiProcess {
  let output = '';
  const child = fork(file, [], {
    env: { ...process.env, PORT: '0', METRICS_PORT: '0', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const messages: ApiMessage[] = [];
  child.on('message', (message) => messages.push(message as ApiMessage));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const listening = new Promise<string>((resolve, reject) => {
    child.on('message', (message: ApiMessage) => {
      if (message.type === 'listening') resolve(String(message.url));
    });
    void exited.then((code) => reject(new Error(`the API exited (${code}):\n${output}`)));
  });
  // Awaited only by the tests that start it: an exit before listening is not unhandled.
  listening.catch(() => undefined);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { child, messages, output: () => output, listening, exited, stop };
}
