/**
 * The stage's unit tests wait for a state with this: vitest's own `vi.waitFor`, polling the
 * predicate, failing with what was awaited ("timed out waiting for the first key frame").
 */
import { vi } from 'vitest';

export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await predicate())) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}
