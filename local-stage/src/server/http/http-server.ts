/**
 * Kept as one file: every door of the stage process and the rule that guards it (public,
 * loopback only, the API's token, faults on) read together, so none is missed.
 *
 * The stage process's HTTP surface.
 *
 * Public (the API passes these through to it unchanged):
 *   GET  /stage/health   200 {status:'ok', ready:true, publishers} when a viewer's join would be
 *                        served; else 503 {status:'unavailable', ready:false, reason, publishers}
 *   WS   /stage/events   the signalling socket (../../signalling.ts)
 *   /stage/whip/...      the WHIP endpoint for publishers (sdp-endpoint.ts)
 *   /stage/whep/...      the WHEP endpoint for players (sdp-endpoint.ts)
 * Loopback only, never under /stage/ (so the API's proxy cannot expose them); the routes that
 * change the table or the sessions, or wake the cameras, also need the API's stage control token
 * (`Authorization: Bearer`, signed with the stage's secret; 401 without: decision 0082):
 *   GET  /_stats         counts: sockets, peer connections, publishers per stage
 *   WS   /_control/cameras  the camera process's link (../../camera-link.ts): Bearer link token
 *   POST /_control/end-user-sessions {userId, tokenGeneration}   the API ended this user's
 *                        sign-in: tokens issued before that generation are refused, and their
 *                        sessions end (`participant-disconnected`); answers {ended}. Always on.
 *   GET|PUT|POST /_control/token-generations   the accounts' token generations (decision 0058):
 *                        PUT {generations} the API's whole table, POST {userId, tokenGeneration}
 *                        a new account; each answers {loaded, users, stageRun}. GET ?wait=S
 *                        (1-60)&run=R: the API's long poll, held up to S s while the stage has
 *                        the table and is run R. Over MAX_TOKEN_GENERATION_ACCOUNTS: 413
 *   GET  /_control/on-air?since=N&wait=S   who is on air, as health's `publishers`, whether a
 *                        person watches each (decision 0084), and the version of that answer:
 *                        {version, publishers, watched}; held up to S s (1-60) while the version
 *                        is still N (the recorder's long poll)
 *   POST /_control/presence   a signed-in viewer is about (the API says so): sleeping cameras
 *                        wake now (decision 0074); answers {wasAsleep}
 *   GET  /_control/events?after=N&run=R&wait=S   the participant events after N of run R, and
 *                        each aircraft now (decision 0098): {run, first, last, events, aircraft};
 *                        held up to S s (1-60) while there is none after N (the API's feed)
 *   GET  /_control/metrics   the stage's figures in the Prometheus text format, for the API's
 *                        metrics endpoint (decision 0097)
 *   /_faults/...         fault injection, only with STAGE_FAULTS=1 (see faultRoutes below)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import {
  answerClientError,
  DEFAULT_REQUEST_TIMEOUT_MS,
  requestTimeoutOptions,
} from '@tailcam/protocol/node-http-answers';
import { bearerToken } from '@tailcam/protocol/loopback-token';
import {
  END_USER_SESSIONS_PATH,
  endUserSessionsBody,
  MAX_TOKEN_GENERATION_ACCOUNTS,
  PRESENCE_PATH,
  STAGE_EVENTS_PATH,
  STAGE_METRICS_PATH,
  MAX_TOKEN_GENERATIONS_BYTES,
  MAX_TOKEN_GENERATIONS_WAIT_SECONDS,
  TOKEN_GENERATIONS_PATH,
  tokenGenerationBody,
  tokenGenerationsBody,
  verifyStageControlToken,
} from '@tailcam/protocol/stage-control';
import { CAMERA_LINK_PATH, verifyCameraLinkToken } from '../../camera-link';
import { STAGE_ERROR_CODES } from '../../signalling';
import { faultBodies, ON_AIR_PATH } from '../../control';
import type { LocalStage } from '../stage/local-stage';
import { handleSdpEndpoint, sdpEndpointOf, type IceServersFor } from './sdp-endpoint';

const MAX_BODY_BYTES = 16 * 1024;
/**
 * The routes only the API may call (decision 0082): loopback alone let any process of the host
 * lock accounts out, end sessions, grow the table or keep the cameras awake.
 */
const API_ONLY_PATHS = new Set([
  STAGE_EVENTS_PATH,
  TOKEN_GENERATIONS_PATH,
  END_USER_SESSIONS_PATH,
  PRESENCE_PATH,
  STAGE_METRICS_PATH,
]);
const MAX_SOCKETS = 256;
/** Long polls held at once (one per API instance); more are answered at once. */
const MAX_HELD_ANSWERS = 16;

export interface StageServerOptions {
  stage: LocalStage;
  /** The participant-token secret: the camera link's and the API's control tokens are signed with it. */
  secret: Uint8Array;
  faultsEnabled: boolean;
  /** A request (headers and body) not wholly received within this is answered 408 and closed. */
  requestTimeoutMs?: number;
  /** Called by the hard-restart fault after it has answered: the process should exit. */
  onExitRequested?: () => void;
  /** The ICE servers a WHIP/WHEP session's holder gets in `Link` headers (none by default). */
  iceServersFor?: IceServersFor;
}

export function createStageServer(options: StageServerOptions): Server {
  const { stage } = options;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 128 * 1024 });
  sockets.on('connection', (socket) => stage.accept(socket));

  /** The long polls this server holds now. */
  const held = { answers: 0 };
  const server = createServer(
    requestTimeoutOptions(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    (request, response) => {
      handleRequest(request, response, options, held).catch((error: unknown) => {
        stage.log.error({ err: error }, 'request failed');
        if (!response.headersSent) sendJson(response, 500, { error: 'Internal error' });
        else response.destroy();
      });
    },
  );

  // A request the HTTP parser refuses (e.g. a body with no length on a DELETE) gets a JSON 400,
  // and one not wholly received within the request timeout a 408, as the API answers them.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    answerClientError(error, socket, {});
  });

  const cameraLinks = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 });
  server.on('upgrade', (request, socket, head) => {
    // Node takes its own error listener off a socket it hands to 'upgrade', and `ws` adds one only
    // once it accepts the socket: a client that resets the connection while its token is checked,
    // or after a refusal, would otherwise be an uncaught exception that ends the stage.
    socket.on('error', () => socket.destroy());
    if (pathOf(request) === CAMERA_LINK_PATH) {
      const token = bearerToken(request.headers.authorization);
      if (!isLoopback(request)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
        return;
      }
      void verifyCameraLinkToken(token, options.secret).then((valid) => {
        if (!valid) {
          socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
          return;
        }
        cameraLinks.handleUpgrade(request, socket, head, (ws) => stage.acceptCameraLink(ws));
      });
      return;
    }
    if (pathOf(request) !== '/stage/events') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    // Sockets that never join are dropped after 10 s; this bounds how many can wait meanwhile.
    if (sockets.clients.size >= MAX_SOCKETS) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });

  // Ping every socket; one that misses a pong is cut (its peers released by its session). Only
  // while a socket is open: an idle stage wakes for nothing (decision 0078).
  const alive = new WeakMap<object, boolean>();
  let heartbeat: NodeJS.Timeout | undefined;
  const ping = () => {
    for (const socket of sockets.clients) {
      if (alive.get(socket) === false) {
        socket.terminate();
        continue;
      }
      alive.set(socket, false);
      socket.ping();
    }
  };
  sockets.on('connection', (socket) => {
    alive.set(socket, true);
    socket.on('pong', () => alive.set(socket, true));
    if (heartbeat === undefined) {
      heartbeat = setInterval(ping, 10_000);
      heartbeat.unref();
    }
    socket.on('close', () => {
      if (sockets.clients.size > 0 || heartbeat === undefined) return;
      clearInterval(heartbeat);
      heartbeat = undefined;
    });
  });
  server.on('close', () => {
    clearInterval(heartbeat);
    sockets.close();
    cameraLinks.close();
  });
  return server;
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  options: StageServerOptions,
  held: { answers: number },
): Promise<void> {
  const { stage } = options;
  const path = pathOf(request);
  const method = request.method ?? 'GET';

  if (path === '/stage/health' && (method === 'GET' || method === 'HEAD')) {
    const health = stage.health();
    return health.ready
      ? sendJson(response, 200, { status: 'ok', ...health })
      : sendJson(response, 503, { status: 'unavailable', ...health });
  }
  const endpoint = sdpEndpointOf(path);
  if (endpoint) {
    return handleSdpEndpoint(request, response, path, stage[endpoint], options.iceServersFor);
  }
  if (path.startsWith('/_') && !isLoopback(request)) {
    return sendJson(response, 403, { error: 'Loopback only' });
  }
  if (
    API_ONLY_PATHS.has(path) &&
    !(await verifyStageControlToken(bearerToken(request.headers.authorization), options.secret))
  ) {
    return sendJson(
      response,
      401,
      { error: "The stage's control routes need the API's control token" },
      { 'www-authenticate': 'Bearer' },
    );
  }
  if (path === '/_stats' && method === 'GET') return sendJson(response, 200, stage.stats());
  if (path === END_USER_SESSIONS_PATH) {
    if (method !== 'POST') return sendJson(response, 405, { error: 'Use POST' });
    const parsed = endUserSessionsBody.safeParse(await readJson(request));
    if (!parsed.success) {
      return sendJson(response, 400, {
        error: 'Body must be {"userId": "...", "tokenGeneration": n}',
      });
    }
    const ended = stage.endUserSessions(parsed.data.userId, parsed.data.tokenGeneration);
    if (ended > 0) stage.log.info(`ended ${ended} session(s) of a user whose sign-in was ended`);
    return sendJson(response, 200, { ended });
  }
  if (path === STAGE_METRICS_PATH) {
    if (method !== 'GET') return sendJson(response, 405, { error: 'Use GET' });
    const text = await stage.metrics.text();
    response.writeHead(200, { 'content-type': stage.metrics.contentType });
    response.end(text);
    return;
  }
  if (path === PRESENCE_PATH) {
    if (method !== 'POST') return sendJson(response, 405, { error: 'Use POST' });
    return sendJson(response, 200, { wasAsleep: stage.viewerPresent() });
  }
  if (path === TOKEN_GENERATIONS_PATH) {
    const { generations } = stage;
    if (method === 'PUT') {
      const parsed = tokenGenerationsBody.safeParse(
        await readJson(request, MAX_TOKEN_GENERATIONS_BYTES),
      );
      if (!parsed.success) {
        return sendJson(response, 400, { error: 'Body must be {"generations": {"userId": n}}' });
      }
      const first = !generations.loaded;
      if (!generations.load(parsed.data.generations)) return tableFull(response);
      if (first) stage.log.info(`token generations received: ${generations.users} account(s)`);
    } else if (method === 'POST') {
      const parsed = tokenGenerationBody.safeParse(await readJson(request));
      if (!parsed.success) {
        return sendJson(response, 400, {
          error: 'Body must be {"userId": "...", "tokenGeneration": n}',
        });
      }
      if (!generations.record(parsed.data.userId, parsed.data.tokenGeneration)) {
        return tableFull(response);
      }
    } else if (method === 'GET') {
      const waitMs = heldAnswerMs(request.url);
      if (waitMs === undefined) {
        return sendJson(response, 400, {
          error: `wait must be whole seconds, 1 to ${MAX_TOKEN_GENERATIONS_WAIT_SECONDS}`,
        });
      }
      // The API's long poll: a stage that has the table has nothing new to say until the wait
      // is up (a restarted stage answers at once), so an idle API and stage wake once a minute.
      // A run other than the one the API sent its table to is a restart: answered at once.
      const run = new URLSearchParams((request.url ?? '').split('?')[1] ?? '').get('run');
      if (
        waitMs > 0 &&
        generations.loaded &&
        (run === null || run === generations.run) &&
        held.answers < MAX_HELD_ANSWERS
      ) {
        held.answers += 1;
        await holdAnswer(response, waitMs).finally(() => (held.answers -= 1));
        if (response.destroyed) return;
      }
    } else {
      return sendJson(response, 405, { error: 'Use GET, PUT or POST' });
    }
    return sendJson(response, 200, {
      loaded: generations.loaded,
      users: generations.users,
      stageRun: generations.run,
    });
  }
  if (path === ON_AIR_PATH) {
    if (method !== 'GET') return sendJson(response, 405, { error: 'Use GET' });
    const waitMs = heldAnswerMs(request.url);
    const since = new URLSearchParams((request.url ?? '').split('?')[1] ?? '').get('since');
    if (waitMs === undefined || (since !== null && !/^\d{1,15}$/.test(since))) {
      return sendJson(response, 400, {
        error: `since must be a whole number and wait whole seconds, 1 to ${MAX_TOKEN_GENERATIONS_WAIT_SECONDS}`,
      });
    }
    // The recorder's long poll: nothing to say until who is on air changes or the wait is up.
    if (
      waitMs > 0 &&
      since !== null &&
      Number(since) === stage.onAirVersion &&
      held.answers < MAX_HELD_ANSWERS
    ) {
      held.answers += 1;
      await holdAnswer(response, waitMs, (wake) => stage.onOnAirChange(wake)).finally(
        () => (held.answers -= 1),
      );
      if (response.destroyed) return;
    }
    return sendJson(response, 200, {
      version: stage.onAirVersion,
      publishers: stage.health().publishers,
      watched: stage.watchedByPerson(),
    });
  }
  if (path === STAGE_EVENTS_PATH) {
    if (method !== 'GET') return sendJson(response, 405, { error: 'Use GET' });
    const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
    const waitMs = heldAnswerMs(request.url);
    const after = query.get('after') ?? '0';
    const run = query.get('run');
    if (waitMs === undefined || !/^\d{1,15}$/.test(after) || (run !== null && run.length > 64)) {
      return sendJson(response, 400, {
        error: `after must be a whole number and wait whole seconds, 1 to ${MAX_TOKEN_GENERATIONS_WAIT_SECONDS}`,
      });
    }
    // Another run's numbers mean nothing here: a restarted stage answers from its first event.
    const since = run === null || run === stage.events.run ? Number(after) : 0;
    if (waitMs > 0 && since >= stage.events.last && held.answers < MAX_HELD_ANSWERS) {
      held.answers += 1;
      await holdAnswer(response, waitMs, (wake) => stage.events.onEvent(wake)).finally(
        () => (held.answers -= 1),
      );
      if (response.destroyed) return;
    }
    return sendJson(response, 200, stage.eventsAnswer(since));
  }
  if (path.startsWith('/_faults/')) {
    if (!options.faultsEnabled) {
      return sendJson(response, 404, { error: 'Fault injection is off (set STAGE_FAULTS=1)' });
    }
    return faultRoutes(path, method, request, response, options);
  }
  return sendJson(response, 404, { error: 'Not found' });
}

async function faultRoutes(
  path: string,
  method: string,
  request: IncomingMessage,
  response: ServerResponse,
  options: StageServerOptions,
): Promise<void> {
  const { stage } = options;
  if (path === '/_faults/state' && method === 'GET') return sendJson(response, 200, stage.stats());
  if (method !== 'POST') return sendJson(response, 405, { error: 'Use POST' });
  const body = await readJson(request);
  if (body === undefined) return sendJson(response, 400, { error: 'Body must be JSON' });
  const parse = <T>(schema: z.ZodType<T>): T | undefined => {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    sendJson(response, 400, { error: z.prettifyError(parsed.error) });
    return undefined;
  };

  switch (path) {
    case '/_faults/drop': {
      const target = parse(faultBodies.drop);
      if (target) sendJson(response, 200, { dropped: stage.faults.drop(target) });
      return;
    }
    case '/_faults/camera': {
      const command = parse(faultBodies.camera);
      if (!command) return;
      let changed = false;
      if (command.action === 'stop' || command.action === 'restart') {
        changed = stage.faults.stopCamera(command.stageId);
      }
      if (command.action === 'start' || command.action === 'restart') {
        changed = stage.faults.startCamera(command.stageId) || changed;
      }
      sendJson(response, 200, { changed, publishers: stage.health().publishers });
      return;
    }
    case '/_faults/cameras-sleep': {
      // The idle spell cut short (decision 0074): refused while anyone watches.
      sendJson(response, 200, { asleep: stage.sleepCamerasNow() });
      return;
    }
    case '/_faults/fail-next-join': {
      const failure = parse(faultBodies.failNextJoin);
      if (!failure) return;
      const code = failure.code ?? STAGE_ERROR_CODES.FAILED;
      stage.faults.failNextJoin({
        stageId: failure.stageId,
        code,
        message: failure.message,
      });
      sendJson(response, 200, { pending: stage.stats().pendingJoinFailures });
      return;
    }
    case '/_faults/stage-error': {
      const error = parse(faultBodies.stageError);
      if (!error) return;
      const reached = stage.faults.raiseError({
        participantId: error.participantId,
        stageId: error.stageId,
        code: error.code ?? STAGE_ERROR_CODES.FAILED,
        category: error.category ?? 'SUBSCRIBE_ERROR',
        message: error.message ?? '',
        fatal: error.fatal ?? false,
      });
      sendJson(response, 200, { reached });
      return;
    }
    case '/_faults/loss': {
      const loss = parse(faultBodies.loss);
      if (loss) sendJson(response, 200, stage.faults.setOutgoingLoss(loss));
      return;
    }
    case '/_faults/restart': {
      const restart = parse(faultBodies.restart);
      if (!restart) return;
      if (restart.hard) {
        sendJson(response, 202, { exiting: true });
        response.on('finish', () => options.onExitRequested?.());
        return;
      }
      sendJson(response, 200, { dropped: stage.faults.restart() });
      return;
    }
    default:
      sendJson(response, 404, { error: 'No such fault' });
  }
}

/** `?wait=S` in milliseconds: 0 when absent, undefined when not whole seconds 1-60. */
function heldAnswerMs(url: string | undefined): number | undefined {
  const wait = new URLSearchParams((url ?? '').split('?')[1] ?? '').get('wait');
  if (wait === null) return 0;
  const seconds = /^\d{1,2}$/.test(wait) ? Number(wait) : 0;
  return seconds >= 1 && seconds <= MAX_TOKEN_GENERATIONS_WAIT_SECONDS ? seconds * 1000 : undefined;
}

/**
 * Waits `ms`, or until the client goes (the stage's close cuts every connection), or until
 * `until` calls its `wake` (it returns what stops it calling).
 */
function holdAnswer(
  response: ServerResponse,
  ms: number,
  until?: (wake: () => void) => () => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    let finished = false;
    let stop: (() => void) | undefined = undefined;
    const done = () => {
      finished = true;
      clearTimeout(timer);
      stop?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop = until?.(done);
    // `until` may have called `wake` before it returned what stops it.
    if (finished) stop?.();
    response.once('close', done);
  });
}

/**
 * The request's path, exactly as sent (decision 0087; odd-paths.test.ts). A URL parser would
 * resolve dot segments (also encoded ones: `/stage/%2e%2e/_faults/drop` becomes `/_faults/drop`),
 * letting a request that the API proxies because it starts with /stage/ reach the loopback-only
 * routes; such paths are refused. Nothing is decoded: `/%5fstats` is not `/_stats`.
 */
function pathOf(request: IncomingMessage): string {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (!path.startsWith('/') || /\.\.|%2e|%2f|%5c|\\|\/\//i.test(path)) return '/invalid-path';
  return path;
}

function isLoopback(request: IncomingMessage): boolean {
  const address = request.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

async function readJson(request: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxBytes) return undefined;
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A table or a new account past MAX_TOKEN_GENERATION_ACCOUNTS: refused, nothing changed. */
function tableFull(response: ServerResponse): void {
  sendJson(response, 413, {
    error: `The table of token generations holds at most ${MAX_TOKEN_GENERATION_ACCOUNTS} accounts`,
  });
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
