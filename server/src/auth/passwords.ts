/**
 * Password hashing with argon2id (the library's default algorithm, OWASP's parameters:
 * 19 MiB, 2 passes, 1 lane). An unknown username is still verified against a dummy hash so the
 * answer takes as long as for a known one.
 */
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

export interface PasswordVerifier {
  /** Verifies against `passwordHash`, or against a dummy hash when it is undefined (then false). */
  verify(passwordHash: string | undefined, password: string): Promise<boolean>;
}

export function createPasswordVerifier(): PasswordVerifier {
  let dummyHash: Promise<string> | undefined;
  return {
    async verify(passwordHash, password) {
      if (passwordHash !== undefined) return verifyPassword(passwordHash, password);
      dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
      await verifyPassword(await dummyHash, password);
      return false;
    },
  };
}

/** A password for generated accounts (the demo viewer): 18 random bytes, base64url. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
