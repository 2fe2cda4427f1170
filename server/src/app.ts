/**
 * Builds the Fastify app: plugins, hooks and routes, with nothing listening. `server.ts` listens;
 * tests call `inject`.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { requestTimeoutOptions } from '@tailcam/protocol/node-http-answers';
import { createLoginTokens } from './auth/login-token';
import { createPasswordVerifier, type PasswordVerifier } from './auth/passwords';
import type { Config } from './config';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from './db/database-errors';
import type { UserStore } from './db/user-store';
import { HttpError } from './http/errors';
import { createClientErrorHandler, registerShutdownAnswer } from './http/framework-answers';
import {
  createMemoryRateLimitStore,
  createRateLimiter,
  loginRateLimits,
  thumbnailRateLimit,
  tokenRateLimit,
  trickleRateLimit,
  whepRateLimit,
  whipRateLimit,
  type RateLimitStore,
} from './http/rate-limit';
import { registerRequestGuard } from './http/request-guard';
import { RequestLogController } from './http/request-log';
import {
  contentSecurityPolicy,
  createSecurityHeaders,
  registerSecurityHeaders,
} from './http/security-headers';
import { zodSerializerCompiler, zodValidatorCompiler } from './http/zod-schema';
import type { StageProvider } from './providers/stage-provider';
import { registerHealthRoutes } from './routes/health';
import type { ApiMetrics } from './metrics/api-metrics';
import { registerLoginRoute } from './routes/login';
import { registerParticipantTokenRoute } from './routes/participant-token';
import type { IvsRecordings } from './recordings/ivs-recordings';
import type { OperationsState } from './operations/operations-state';
import { registerOperationsRoute } from './operations/operations-route';
import { registerRecordingRoutes } from './routes/recordings';
import { registerStageProxy } from './routes/stage-proxy';
import { registerStageSdkRoute } from './routes/stage-sdk';
import { registerThumbnailRoute } from './routes/thumbnails';
import type { ThumbnailSource } from './thumbnails/thumbnail-source';
import { registerWebApp } from './routes/web-app';

/** Bodies of the JSON API are tiny: a username and a password, or two ids. */
export const API_BODY_LIMIT = 4 * 1024;

export type AppConfig = Pick<
  Config,
  | 'repoRoot'
  | 'stageProvider'
  | 'ivs'
  | 'loginTokenHours'
  | 'localStage'
  | 'stageProxy'
  | 'webDistDir'
  | 'corsOrigins'
  | 'trustProxy'
  | 'publicUrl'
  | 'loginLimits'
  | 'tokenRateLimitPerMinute'
  | 'thumbnailRateLimitPerMinute'
  | 'recordingLimits'
  | 'whipRateLimitPerMinute'
  | 'whepRateLimitPerMinute'
  | 'trickleRateLimitPerMinute'
  | 'requestTimeoutMs'
> &
  Partial<Pick<Config, 'recordingsDir'>>;

export interface AppDeps {
  store: UserStore;
  stageProvider: StageProvider;
  /** Where /home's pictures come from; none: every thumbnail answers 204 (tests). */
  thumbnails?: ThumbnailSource;
  /** IVS's recordings on S3 (STAGE_PROVIDER=ivs with IVS_RECORDINGS_BUCKET). */
  ivsRecordings?: IvsRecordings;
  /**
   * What the operator's page reads (decision 0098): server.ts passes the one the stage's event
   * feed writes; tests pass an `OperationsStateStore` they write themselves.
   */
  operations?: OperationsState;
  /** Counts the answers for the metrics endpoint (decision 0097); none: not counted (tests). */
  metrics?: ApiMetrics;
  /** Signs and verifies login tokens. */
  authSecret: Uint8Array;
  rateLimitStore?: RateLimitStore;
  passwords?: PasswordVerifier;
  /** A pino logger; none when omitted (tests). */
  logger?: FastifyBaseLogger;
  now?: () => Date;
}

function clientMessage(error: FastifyError, status: number): string {
  switch (error.code) {
    case 'FST_ERR_VALIDATION':
      return error.message;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Request body is empty';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Request body is not valid JSON';
    case 'FST_ERR_BAD_URL':
      return 'Malformed URL';
  }
  if (error instanceof SyntaxError) return 'Request body is not valid JSON';
  return STATUS_CODES[status] ?? 'Bad request';
}

/** The one error handler: Fastify's, and its `frameworkErrors` (a URL that does not decode). */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // A reply that meant to send a file (a download whose remux failed before its first byte) had
  // its type and name set: the error is JSON, and names no file.
  reply.removeHeader('content-disposition');
  reply.type('application/json; charset=utf-8');
  if (error instanceof HttpError) {
    return reply.code(error.statusCode).headers(error.headers).send({ error: error.message });
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    request.log.info({ code: error.code, status }, 'request refused');
    return reply.code(status).send({ error: clientMessage(error, status) });
  }
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return reply.code(503).send({ error: DATABASE_UNAVAILABLE });
  }
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send({ error: 'Internal server error' });
}

export async function buildApp(config: AppConfig, deps: AppDeps): Promise<FastifyInstance> {
  const trustProxy = config.trustProxy;
  const securityHeaders = createSecurityHeaders({
    csp: contentSecurityPolicy({
      stageProvider: config.stageProvider,
      ivsSdkUrl: config.ivs.sdkUrl,
      ivsRecordings:
        config.ivs.recordingsBucket !== undefined && config.ivs.region !== undefined
          ? { bucket: config.ivs.recordingsBucket, region: config.ivs.region }
          : undefined,
    }),
    corsOrigins: config.corsOrigins,
  });
  const timeouts = requestTimeoutOptions(config.requestTimeoutMs);
  const app = Fastify({
    ...(deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger }),
    trustProxy:
      typeof trustProxy === 'number'
        ? (_address: string, hop: number) => hop < trustProxy
        : trustProxy,
    bodyLimit: API_BODY_LIMIT,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new RequestLogController(),
    // http/framework-answers.ts answers these in our shape, with our headers.
    return503OnClosing: false,
    clientErrorHandler: createClientErrorHandler(securityHeaders.fixed, deps.logger),
    frameworkErrors: (error, request, reply) => {
      // This reply skips every hook, the one that sets the headers included.
      securityHeaders.apply(request, reply);
      return handleError(error, request, reply);
    },
    // A request (headers and body) must arrive whole within the limit, else 408 and the socket
    // closes (the stage's port has the same: @tailcam/protocol/node-http-answers).
    requestTimeout: timeouts.requestTimeout,
    http: {
      headersTimeout: timeouts.headersTimeout,
      connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
    },
  });
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler);
  // JSON only: text/plain bodies are refused with 415 rather than parsed as strings.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler(handleError);
  deps.metrics?.register(app);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    if (path === '/api' || path.startsWith('/api/')) {
      return reply.code(404).send({ error: `Not found: ${request.method} ${path.slice(0, 200)}` });
    }
    return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
  });

  registerRequestGuard(app, securityHeaders);
  registerSecurityHeaders(app, securityHeaders);
  registerShutdownAnswer(app);

  const store = deps.store;
  const loginTokens = createLoginTokens({
    secret: deps.authSecret,
    ttlHours: config.loginTokenHours,
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  const rateLimiter = createRateLimiter(
    deps.rateLimitStore ?? createMemoryRateLimitStore(),
    deps.now === undefined ? Date.now : () => deps.now!().getTime(),
  );

  registerHealthRoutes(app, { store });
  registerLoginRoute(app, {
    store,
    passwords: deps.passwords ?? createPasswordVerifier(),
    loginTokens,
    rateLimiter,
    limits: loginRateLimits(config.loginLimits),
  });
  // Every signed-in request tells the local stage a viewer is about (decision 0074).
  const viewerPresent = deps.stageProvider.viewerPresent;
  registerParticipantTokenRoute(app, {
    store,
    loginTokens,
    viewerPresent,
    stageProvider: deps.stageProvider,
    rateLimiter,
    rateLimit: tokenRateLimit(config.tokenRateLimitPerMinute),
  });
  registerThumbnailRoute(app, {
    store,
    loginTokens,
    viewerPresent,
    thumbnails: deps.thumbnails,
    rateLimiter,
    rateLimit: thumbnailRateLimit(config.thumbnailRateLimitPerMinute),
  });
  registerOperationsRoute(app, {
    store,
    loginTokens,
    operations: deps.operations,
    available: config.stageProvider === 'local',
    rateLimiter,
  });
  registerStageSdkRoute(app, {
    stageProvider: config.stageProvider,
    sdkFile: config.stageProvider === 'ivs' ? config.ivs.sdkFile : config.localStage.sdkFile,
    sdkUrl: config.ivs.sdkUrl,
    repoRoot: config.repoRoot,
  });
  if (config.stageProvider === 'local') {
    await registerStageProxy(app, {
      upstream: config.localStage.url,
      limits: config.stageProxy,
      publicUrl: config.publicUrl,
      corsOrigins: config.corsOrigins,
      rateLimiter,
      whipRateLimit: whipRateLimit(config.whipRateLimitPerMinute),
      whepRateLimit: whepRateLimit(config.whepRateLimitPerMinute),
      trickleRateLimit: trickleRateLimit(config.trickleRateLimitPerMinute),
    });
  }
  registerRecordingRoutes(app, {
    store,
    loginTokens,
    // With IVS the recordings are Amazon's (decision 0073); none are local.
    recordingsDir: config.stageProvider === 'local' ? config.recordingsDir : undefined,
    ivs: config.stageProvider === 'ivs' ? deps.ivsRecordings : undefined,
    rateLimiter,
    limits: config.recordingLimits,
  });
  await registerWebApp(app, { webDistDir: config.webDistDir, repoRoot: config.repoRoot });
  return app;
}
