/**
 * `users remove NAME` ends an account for good, so on a terminal the name is typed again (in any
 * case: the canonical forms must match); a script, whose standard input is not a terminal, says
 * `--yes` instead.
 */
import { createInterface } from 'node:readline/promises';
import { canonicalUsername } from '../accounts/username';

export type RemovalConsent = 'confirmed' | 'needs-yes' | 'declined';

export async function confirmRemoval(
  username: string,
  options: { yes: boolean; input: NodeJS.ReadStream; output: NodeJS.WritableStream },
): Promise<RemovalConsent> {
  if (options.yes) return 'confirmed';
  if (!options.input.isTTY) return 'needs-yes';
  const prompt = createInterface({ input: options.input, output: options.output });
  try {
    const typed = await prompt.question(
      `This removes "${username}" and ends their sessions. Type the name again to confirm: `,
    );
    const expected = canonicalUsername(username) ?? username;
    return (canonicalUsername(typed.trim()) ?? typed.trim()) === expected
      ? 'confirmed'
      : 'declined';
  } finally {
    prompt.close();
  }
}
