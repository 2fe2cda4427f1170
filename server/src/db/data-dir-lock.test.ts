import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers';
import { LOCK_FILE, tryLockDataDir } from './data-dir-lock';

describe('data directory lock', () => {
  it('is held by one process at a time and released on demand', () => {
    const dir = tempDir();
    const first = tryLockDataDir(dir, 'server');
    expect(first.acquired).toBe(true);
    // Our own pid in the file counts as a live owner for anyone else; simulate another owner.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.ppid, role: 'server' }));
    const second = tryLockDataDir(dir, 'users-cli');
    expect(second).toEqual({ acquired: false, ownerPid: process.ppid, ownerRole: 'server' });
    // A release by a process that no longer owns the file leaves it alone.
    if (first.acquired) first.lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
  });

  it('takes over a lock whose process is gone, or whose file is unreadable', () => {
    const dir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: Number(gone.stdout), role: 'server' }),
    );
    const attempt = tryLockDataDir(dir, 'server');
    expect(attempt.acquired).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    if (attempt.acquired) attempt.lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    writeFileSync(join(dir, LOCK_FILE), '{"pid":');
    const again = tryLockDataDir(dir, 'server');
    expect(again.acquired).toBe(true);
    if (again.acquired) again.lock.release();
  });
});
