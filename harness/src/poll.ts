/**
 * Waiting for a state outside a test runner (the soak, the benchmark): `check` polled until it
 * holds or the time is up; a check that throws counts as not yet. Inside a test, `expect.poll`.
 */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return true;
    await new Promise((done) => setTimeout(done, intervalMs));
  }
  return false;
}
