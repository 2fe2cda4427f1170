/**
 * PGlite is single-process: two processes must never open one data directory at once. The owner
 * (the server, or the users CLI when no server runs) holds `DATA_DIR/server.lock`, a file created
 * exclusively and naming its process; a lock whose process is gone is stale and taken over.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'server.lock';

export interface DataDirLock {
  release(): void;
}

export type LockAttempt =
  { acquired: true; lock: DataDirLock } | { acquired: false; ownerPid: number; ownerRole: string };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): { pid: number; role: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'pid' in parsed &&
      typeof parsed.pid === 'number' &&
      Number.isInteger(parsed.pid) &&
      parsed.pid > 0
    ) {
      const role = 'role' in parsed && typeof parsed.role === 'string' ? parsed.role : 'unknown';
      return { pid: parsed.pid, role };
    }
  } catch {
    // Unreadable or half-written: treated as stale below.
  }
  return undefined;
}

/** Tries to lock `dataDir` for this process; `role` says who holds it ('server' or 'cli'). */
export function tryLockDataDir(dataDir: string, role: string): LockAttempt {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(
        path,
        JSON.stringify({ pid: process.pid, role, startedAt: new Date().toISOString() }),
        { flag: 'wx', mode: 0o600 },
      );
      let released = false;
      return {
        acquired: true,
        lock: {
          release() {
            if (released) return;
            released = true;
            if (readOwner(path)?.pid === process.pid) unlinkSync(path);
          },
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(path);
    if (owner !== undefined && owner.pid !== process.pid && isAlive(owner.pid)) {
      return { acquired: false, ownerPid: owner.pid, ownerRole: owner.role };
    }
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`Could not lock ${dataDir}: ${path} keeps reappearing`);
}
