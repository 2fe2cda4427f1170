/**
 * The metrics endpoint's variables (docs/decisions/0097-metrics-endpoint.md): where it listens,
 * loopback by default, and the bearer token it needs. Bound to an address other hosts reach, it
 * refuses to start without a token: the figures say who is on air and how many watch.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { emptyToUndefined, integer } from '../config-values';

/** Its own port, beside the API's 8080 and the stage's 8091 (the OpenTelemetry exporter's). */
export const DEFAULT_METRICS_PORT = 9464;
const MIN_TOKEN_LENGTH = 16;

export const metricsVariables = {
  METRICS_HOST: z.preprocess(emptyToUndefined, z.string().trim().default('127.0.0.1')),
  /** 0: a free port the system picks (tests), said in the log. */
  METRICS_PORT: integer(DEFAULT_METRICS_PORT, 0, 65535),
  METRICS_TOKEN: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .optional(),
  ),
};

type MetricsVariables = z.output<z.ZodObject<typeof metricsVariables>>;

export interface MetricsSettings {
  host: string;
  port: number;
  /** The bearer token a scrape must carry; none: any local process may scrape. */
  token: string | undefined;
}

/** Whether `host` is reached from this machine alone: 127.0.0.0/8, ::1, or localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '::ffff:127.0.0.1';
  return false;
}

/** The rule: an endpoint other hosts may reach needs a token. */
export function checkMetricsVariables(
  env: Partial<MetricsVariables>,
  parsed: (name: keyof MetricsVariables) => boolean,
  problem: (name: keyof MetricsVariables, message: string) => void,
): void {
  if (!parsed('METRICS_HOST') || !parsed('METRICS_TOKEN') || env.METRICS_HOST === undefined) {
    return;
  }
  if (!isLoopbackHost(env.METRICS_HOST) && env.METRICS_TOKEN === undefined) {
    problem(
      'METRICS_TOKEN',
      `required when METRICS_HOST (${env.METRICS_HOST}) is not a loopback address: the metrics would be open to anyone who reaches it (e.g. \`openssl rand -hex 24\`, the same in Prometheus's authorization.credentials)`,
    );
  }
}

export function metricsSettings(env: MetricsVariables): MetricsSettings {
  return { host: env.METRICS_HOST, port: env.METRICS_PORT, token: env.METRICS_TOKEN };
}
