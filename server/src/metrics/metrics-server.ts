/**
 * The one endpoint an operator's Prometheus scrapes (docs/decisions/0097-metrics-endpoint.md):
 * `GET /metrics` on a port of its own (METRICS_HOST:METRICS_PORT, loopback by default), apart
 * from the app's port so that no proxy in front of the app exposes it by mistake. With
 * METRICS_TOKEN it needs `Authorization: Bearer <token>`. It answers the API's figures, then the
 * local stage's own (its loopback `GET /_control/metrics`, asked with the control token at each
 * scrape), and `tailcam_stage_up`: whether the stage answered. A stage that does not answer
 * costs the scrape its figures, never the API's.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken } from '@tailcam/protocol/loopback-token';
import { issueStageControlToken, STAGE_METRICS_PATH } from '@tailcam/protocol/stage-control';
import type { ApiMetrics } from './api-metrics';
import type { MetricsSettings } from './metrics-config';

export const METRICS_PATH = '/metrics';
/** A stage that has not answered by then is down for this scrape (Prometheus waits 10 s). */
const STAGE_TIMEOUT_MS = 2_000;
/** The stage's text is a few kilobytes; more is not its answer. */
const MAX_STAGE_TEXT_BYTES = 1024 * 1024;

export interface MetricsServerOptions {
  settings: MetricsSettings;
  api: ApiMetrics;
  /** The local stage (STAGE_PROVIDER=local): its URL and the secret its control tokens are signed with. */
  stage?: { url: string; secret: Uint8Array } | undefined;
}

export interface RunningMetricsServer {
  server: Server;
  /** Where it listens, e.g. http://127.0.0.1:9464/metrics. */
  url: string;
  close(): Promise<void>;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The stage's figures and whether it answered. */
async function stageText(stage: { url: string; secret: Uint8Array }): Promise<string | undefined> {
  try {
    const response = await fetch(`${stage.url}${STAGE_METRICS_PATH}`, {
      headers: { authorization: `Bearer ${await issueStageControlToken(stage.secret)}` },
      signal: AbortSignal.timeout(STAGE_TIMEOUT_MS),
    });
    if (!response.ok) return undefined;
    const text = await response.text();
    return text.length <= MAX_STAGE_TEXT_BYTES ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Every figure, as one scrape answers it. */
export async function metricsText(
  options: Omit<MetricsServerOptions, 'settings'>,
): Promise<string> {
  const [apiText, stage] = await Promise.all([
    options.api.registry.metrics(),
    options.stage === undefined ? Promise.resolve(undefined) : stageText(options.stage),
  ]);
  if (options.stage === undefined) return apiText;
  const up = [
    '# HELP tailcam_stage_up Whether the local stage answered this scrape with its figures (1) or not (0).',
    '# TYPE tailcam_stage_up gauge',
    `tailcam_stage_up ${stage === undefined ? 0 : 1}`,
    '',
  ].join('\n');
  return `${apiText}${up}${stage ?? ''}`;
}

function answer(response: ServerResponse, status: number, text: string, headers = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(text);
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: MetricsServerOptions,
): Promise<void> {
  const path = (request.url ?? '').split('?', 1)[0];
  if (path !== METRICS_PATH)
    return answer(response, 404, `Not found: the metrics are at ${METRICS_PATH}\n`);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return answer(response, 405, 'Use GET\n', { allow: 'GET, HEAD' });
  }
  const { token } = options.settings;
  if (token !== undefined && !sameToken(bearerToken(request.headers.authorization), token)) {
    return answer(response, 401, 'The metrics need METRICS_TOKEN as a Bearer token\n', {
      'www-authenticate': 'Bearer',
    });
  }
  const text = await metricsText(options);
  response.writeHead(200, { 'content-type': options.api.registry.contentType });
  response.end(request.method === 'HEAD' ? undefined : text);
}

/** Listens at METRICS_HOST:METRICS_PORT; rejects when it cannot (the port taken, say). */
export async function startMetricsServer(
  options: MetricsServerOptions,
): Promise<RunningMetricsServer> {
  const server = createServer((request, response) => {
    handle(request, response, options).catch(() => {
      if (!response.headersSent) answer(response, 500, 'Internal error\n');
      else response.destroy();
    });
  });
  // Prometheus keeps its connection; a slow or idle client is not held for long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.settings.port, options.settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    server,
    url: `http://${host}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
