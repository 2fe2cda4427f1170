/**
 * The lab's namespaces and processes from outside a lab: listing, deleting, sweeping those of dead
 * runs, and waiting for or stopping a helper process. Every wait is bounded.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { findTool } from './lab-support';

export const LAB_PREFIX = 'tc-';
const COMMAND_TIMEOUT_MS = 10_000;

export function waitForLine(child: ChildProcess, line: string, timeoutMs: number, what: string) {
  return new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(`not ready in ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(new Error(`${what}: ${why}\n${stderr}`));
    };
    lines.on('line', (text) => {
      if (text.trim() !== line) return;
      clearTimeout(timer);
      lines.close();
      resolve();
    });
    child.once('exit', (status) => fail(`exited (${status})`));
  });
}

export /** Closes a child's stdin (the lab's helpers stop on that), then SIGTERM, then SIGKILL. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const term = setTimeout(() => child.kill('SIGTERM'), 1_000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve();
    });
    child.stdin?.end();
  });
}

export function listNamespaces(ip: string): string[] {
  const listed = spawnSync(ip, ['netns', 'list'], {
    encoding: 'utf8',
    timeout: COMMAND_TIMEOUT_MS,
  });
  return (listed.stdout ?? '')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(LAB_PREFIX));
}

/** The pids of the processes in a namespace. */
export function namespacePids(ip: string, name: string): number[] {
  const pids = spawnSync(ip, ['netns', 'pids', name], { encoding: 'utf8', timeout: 5_000 });
  return (pids.stdout ?? '').split('\n').filter(Boolean).map(Number);
}

/** Kills what still runs in a namespace (only the lab's own), then deletes it. */
export function deleteNamespace(ip: string, name: string): void {
  for (const pid of namespacePids(ip, name)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  spawnSync(ip, ['netns', 'del', name], { timeout: COMMAND_TIMEOUT_MS, stdio: 'ignore' });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the namespaces of labs whose process is dead (a crashed or killed run); returns them. */
export function sweepStaleLabs(ip = findTool('ip')): string[] {
  if (ip === undefined || process.getuid?.() !== 0) return [];
  const stale = listNamespaces(ip).filter((name) => {
    const pid = /^tc-(\d+)-/.exec(name)?.[1];
    return pid !== undefined && !isAlive(Number(pid));
  });
  for (const name of stale) deleteNamespace(ip, name);
  return stale;
}
