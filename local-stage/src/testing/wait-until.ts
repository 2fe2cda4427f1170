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

/**
 * Waits (real time) until `predicate` holds; not `vi.waitFor`, which moves a faked clock on as it
 * polls.
 */
export async function waitUntilRealTime(
  predicate: () => boolean,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
