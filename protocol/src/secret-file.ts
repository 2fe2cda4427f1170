/**
 * Secrets generated into DATA_DIR for the embedded default (no configuration needed): created
 * once, atomically, readable only by their owner, and shared by the processes that read the
 * same file (the API signs participant tokens with it; the local stage verifies them).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const STAGE_TOKEN_SECRET_FILE = 'stage-token-secret';

/** Reads the secret at `path`, creating it (32 random bytes, base64url) if it does not exist. */
export async function loadOrCreateSecret(path: string): Promise<Uint8Array> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const text = (await readFile(path, 'utf8')).trim();
  if (text.length < 32)
    throw new Error(`The secret in ${path} is too short (32 characters at least)`);
  return new TextEncoder().encode(text);
}
