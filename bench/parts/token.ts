/**
 * `POST /api/token` under load from autocannon on the same machine (it shares the two cores with
 * the API): the highest rate 64 keep-alive connections get in 10 s, then the latency at a fixed
 * 1,000 req/s. And `POST /api/login` latency (argon2id), a few sequential samples of a dedicated
 * account, within the 10-a-minute limit per username.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { LOGIN_VIEWER, type BenchContext } from '../lib/context';
import type { BenchRow } from '../lib/result';
import { median, p95 } from '@tailcam/harness/stats';
import { round } from '../lib/stats';

const LOGIN_SAMPLES = 8;

function load(
  bench: BenchContext,
  options: { connections: number; duration: number; overallRate?: number },
): Promise<autocannon.Result> {
  return autocannon({
    url: `${bench.product.baseUrl}/api/token`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bench.loginToken}` },
    body: JSON.stringify({ stageId: 'N743AS', clientId: randomUUID() }),
    ...options,
  });
}

export async function runToken(bench: BenchContext): Promise<BenchRow[]> {
  await load(bench, { connections: 16, duration: 2 }); // warm-up: JIT, caches
  // The steady rate first: measured right after the saturation run, its tail also timed the
  // collection of the garbage that run's 150,000 requests left behind.
  const fixed = await load(bench, { connections: 32, duration: 10, overallRate: 1_000 });
  const max = await load(bench, { connections: 64, duration: 10 });

  const logins: number[] = [];
  for (let sample = 0; sample < LOGIN_SAMPLES; sample += 1) {
    const start = performance.now();
    await bench.product.loginToken(LOGIN_VIEWER);
    logins.push(performance.now() - start);
  }
  const errors = (result: autocannon.Result) => result.non2xx + result.errors + result.timeouts;
  return [
    {
      part: 'token',
      what: 'POST /api/token, max throughput (64 connections, 10 s)',
      target: '≥ 5,000 req/s',
      median: `${round(max.requests.average)} req/s`,
      p95: `p99 ${round(max.latency.p99)} ms`,
      pass: max.requests.average >= 5_000 && errors(max) === 0,
      note: `latency median ${max.latency.p50} ms; ${errors(max)} errors of ${max.requests.total}`,
    },
    {
      part: 'token',
      what: 'POST /api/token latency at a fixed 1,000 req/s (10 s)',
      target: 'p99 ≤ 10 ms',
      median: `${round(fixed.latency.p50, 1)} ms`,
      p95: `p99 ${round(fixed.latency.p99, 1)} ms`,
      pass: fixed.latency.p99 <= 10 && errors(fixed) === 0,
      note: `${round(fixed.requests.average)} req/s reached; ${errors(fixed)} errors of ${fixed.requests.total}`,
    },
    {
      part: 'token',
      what: `POST /api/login latency, argon2id (n=${LOGIN_SAMPLES}, sequential)`,
      target: '(none)',
      median: `${round(median(logins))} ms`,
      p95: `${round(p95(logins))} ms`,
      pass: undefined,
      note: 'one account, within its 10-a-minute limit',
    },
  ];
}
