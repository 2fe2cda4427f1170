/**
 * Security headers on every response, and CORS closed unless CORS_ORIGINS lists origins.
 * The CSP allows what the stage SDK needs and nothing more (decision 0032): the local SDK talks
 * to this origin only; the IVS SDK also reaches *.live-video.net on port 443 (HTTPS and
 * WebSocket: stage events, WHIP, stats, device configuration) and starts a blob: worker.
 */
import type { FastifyInstance } from 'fastify';

export function contentSecurityPolicy(options: {
  stageProvider: 'local' | 'ivs';
  ivsSdkUrl?: string | undefined;
}): string {
  const ivs = options.stageProvider === 'ivs';
  const scriptSources = ["'self'"];
  if (ivs && options.ivsSdkUrl !== undefined) scriptSources.push(new URL(options.ivsSdkUrl).origin);
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': scriptSources,
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'connect-src': ivs
      ? ["'self'", 'https://*.live-video.net', 'wss://*.live-video.net']
      : ["'self'"],
    'media-src': ["'self'", 'blob:'],
    'worker-src': ivs ? ["'self'", 'blob:'] : ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

export function registerSecurityHeaders(
  app: FastifyInstance,
  options: { csp: string; corsOrigins: readonly string[] },
): void {
  const headers = {
    'content-security-policy': options.csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  };
  const allowed = new Set(options.corsOrigins);

  app.addHook('onRequest', async (request, reply) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    // API answers carry tokens and account state: no browser or proxy may keep a copy.
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    if (allowed.size === 0) return;
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      await reply
        .code(204)
        .headers({
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'Content-Type, Authorization',
          'access-control-max-age': '600',
        })
        .send();
    }
  });
}
