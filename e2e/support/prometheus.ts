/**
 * A real Prometheus (Debian's `prometheus`, 2.42) for a spec: its own temporary directory and
 * storage, a free loopback port, scraping one metrics endpoint every second; and its HTTP API's
 * instant query, parsed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? 'prometheus';

/** Why Prometheus cannot be run here, or undefined when it can. */
export function prometheusMissing(): string | undefined {
  const version = spawnSync(PROMETHEUS, ['--version'], { encoding: 'utf8' });
  if (version.error !== undefined || version.status !== 0) {
    return `no ${PROMETHEUS} on the PATH (Debian: apt-get install prometheus; or set PROMETHEUS_PATH)`;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const queryAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('vector'),
    result: z.array(
      z.object({
        metric: z.record(z.string(), z.string()),
        value: z.tuple([z.number(), z.string()]),
      }),
    ),
  }),
});

export interface RunningPrometheus {
  url: string;
  /** The instant query's samples, as numbers (none: an empty vector). */
  query(expr: string): Promise<number[]>;
  /** Whether the target's last scrape succeeded (the `up` series). */
  targetUp(): Promise<boolean>;
  close(): Promise<void>;
}

export async function startPrometheus(target: {
  host: string;
  port: number;
}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'tailcam-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: tailcam',
      '    metrics_path: /metrics',
      '    static_configs:',
      `      - targets: ['${target.host}:${target.port}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`prometheus exited (${child.exitCode}): ${output.slice(-2000)}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`prometheus was not ready within 15 s: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const query = async (expr: string) => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    if (!response.ok) throw new Error(`query ${expr}: ${response.status} ${await response.text()}`);
    return queryAnswer
      .parse(await response.json())
      .data.result.map(({ value }) => Number(value[1]));
  };
  return {
    url,
    query,
    targetUp: async () => (await query('up{job="tailcam"}'))[0] === 1,
    close,
  };
}
