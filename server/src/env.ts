/**
 * The environment the server and its CLIs read: the process environment over an optional `.env`
 * in the repository root. What the variables mean is config.ts's business.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

export type Env = Record<string, string | undefined>;

/** Reads `<repoRoot>/.env` if present; the process environment wins over it. */
export function readEnv(repoRoot: string, env: Env = process.env): Env {
  const file = join(repoRoot, '.env');
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
  return { ...fromFile, ...env };
}

/**
 * The AWS SDK reads its credentials and profile from the process environment only. `AWS_*`
 * variables that come from `.env` are copied there (the environment still wins), so that a
 * `.env` works for AWS as it does for everything else.
 */
export function exportAwsVariables(env: Env, target: Env = process.env): void {
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('AWS_') && value !== undefined && target[name] === undefined) {
      target[name] = value;
    }
  }
}
