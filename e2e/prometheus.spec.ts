/**
 * A real Prometheus (Debian's 2.42) scrapes the shared product's metrics endpoint every second,
 * and its HTTP API answers the Grafana dashboard's Viewers query (docs/grafana/tailcam.json) for
 * N743AS: at least 1 while a browser watches it, 0 once the browser has left (decision 0097).
 * Without a `prometheus` to run it says SKIPPED, loudly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ROOT } from '@tailcam/harness/product';
import { E2E_METRICS_PORT } from './support/environment';
import { expect, signInByApi, test } from './support/fixtures';
import { prometheusMissing, startPrometheus, type RunningPrometheus } from './support/prometheus';

const STAGE = 'N743AS';
const missing = prometheusMissing();
if (missing !== undefined) {
  console.warn(
    `\n${'#'.repeat(78)}\n#  SKIPPED prometheus.spec.ts: ${missing}\n${'#'.repeat(78)}\n`,
  );
}

/** The dashboard's Viewers panel query, for one aircraft (as Grafana fills in $aircraft). */
function viewersQuery(aircraft: string): string {
  const dashboard = z
    .object({
      panels: z.array(
        z.object({ title: z.string(), targets: z.array(z.object({ expr: z.string() })) }),
      ),
    })
    .parse(JSON.parse(readFileSync(join(ROOT, 'docs', 'grafana', 'tailcam.json'), 'utf8')));
  const expr = dashboard.panels.find((panel) => panel.title === 'Viewers')?.targets[0]?.expr;
  if (expr === undefined) throw new Error('docs/grafana/tailcam.json has no Viewers panel');
  return expr.replace('$aircraft', aircraft);
}

test.describe('a real Prometheus scraping the metrics endpoint', () => {
  test.skip(missing !== undefined, `SKIPPED: ${missing}`);
  let prometheus: RunningPrometheus | undefined;

  test.beforeAll(async () => {
    prometheus = await startPrometheus({ host: '127.0.0.1', port: E2E_METRICS_PORT });
  });

  test.afterAll(async () => {
    await prometheus?.close();
  });

  test("answers the dashboard's viewers of N743AS: at least 1 while a browser watches, 0 after it leaves", async ({
    page,
  }) => {
    const server = prometheus!;
    const query = viewersQuery(STAGE);
    await expect
      .poll(() => server.targetUp(), { message: 'Prometheus scrapes Tailcam' })
      .toBe(true);
    await expect.poll(() => server.query(query)).toEqual([0]);

    await signInByApi(page);
    await page.goto(`/player/${STAGE}`);
    await expect
      .poll(async () => (await server.query(query))[0] ?? 0, {
        message: `Prometheus's ${query} while the browser watches`,
      })
      .toBeGreaterThanOrEqual(1);

    await page.goto('about:blank');
    await expect
      .poll(() => server.query(query), {
        message: `Prometheus's ${query} after the browser left`,
      })
      .toEqual([0]);
  });
});
