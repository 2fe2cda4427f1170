import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateSecret } from './secret-file';

describe('loadOrCreateSecret', () => {
  it('creates an owner-only secret once and returns the same bytes to every reader', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'tailcam-secret-')), 'nested', 'secret');
    const [first, second] = await Promise.all([loadOrCreateSecret(path), loadOrCreateSecret(path)]);
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readFile(path, 'utf8')).length).toBe(first.length);
  });

  it('refuses a secret file that is too short to be safe', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'tailcam-secret-')), 'secret');
    await writeFile(path, 'short');
    await expect(loadOrCreateSecret(path)).rejects.toThrow(/too short/);
  });
});
