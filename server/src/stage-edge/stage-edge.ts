/**
 * The local stage's signalling sockets at the API's edge (decision 0052). Every browser reaches
 * the stage through here, so the door's rules are kept here, before anything reaches the stage:
 *
 * - only `/stage/events` upgrades; any other path under /stage/ is refused before the upgrade;
 * - a browser's upgrade from an origin other than the app's own (its Host), PUBLIC_URL's or one
 *   in CORS_ORIGINS is refused with 403; a client that sends no Origin (not a browser) is judged
 *   by its token, at the stage;
 * - sockets are capped per address (`request.ip`, so TRUST_PROXY holds) and in all; when all
 *   seats are taken, a socket that has not joined gives its seat up (socket-seats.ts), and one
 *   that has not joined within STAGE_JOIN_SECONDS is closed;
 * - frames over 128 KiB are refused (1009), as the stage refuses them;
 * - the browser is pinged, and cut when it stops answering, its stage session with it;
 * - each socket is relayed by a StageRelay, which passes the stage's close codes through.
 *
 * Upgrades are routed through Fastify as requests are (hooks, request.ip, the request log, the
 * `{error}` answers with the security headers) and taken over here by an onRequest hook.
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import type { StageProxyLimits } from '../config';
import { addressKey, SocketSeats, type SeatRefusal } from './socket-seats';
import { StageRelay } from './stage-relay';

const EVENTS_PATH = '/stage/events';
/** As the stage's own limit: the largest message a viewer sends is an SDP answer. */
const MAX_MESSAGE_BYTES = 128 * 1024;

const REFUSALS: Record<SeatRefusal, { status: number; error: string }> = {
  'address-full': { status: 429, error: 'Too many stage connections from this address' },
  full: { status: 503, error: 'The local stage is busy; try again in a moment' },
};

export interface StageEdgeOptions {
  /** http://host:port of the local stage process. */
  upstream: string;
  limits: StageProxyLimits;
  publicUrl: string | undefined;
  corsOrigins: readonly string[];
}

interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
}

/** Whether a browser on `origin` may open the stage's socket on this server (`host`). */
function originAllowed(origin: string, host: string, allowed: ReadonlySet<string>): boolean {
  if (allowed.has(origin)) return true;
  try {
    const url = new URL(origin);
    // The app's own origin: the host the browser asked for, read with the origin's scheme so
    // that a default port (Host `app:443`, Origin `https://app`) compares equal.
    return url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

export function registerStageEdge(app: FastifyInstance, options: StageEdgeOptions): void {
  const { limits } = options;
  const stageEventsUrl = `${options.upstream.replace(/^http/, 'ws')}${EVENTS_PATH}`;
  const allowedOrigins = new Set(options.corsOrigins);
  if (options.publicUrl !== undefined) allowedOrigins.add(new URL(options.publicUrl).origin);
  const upgrades = new WeakMap<IncomingMessage, PendingUpgrade>();
  const sockets = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  const seats = new SocketSeats({
    perAddress: limits.socketsPerAddress,
    total: limits.socketsTotal,
  });
  const relays = new Set<StageRelay>();

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrades.set(request, { socket, head });
    // Answered like any request (a refusal included); the socket ends with the answer.
    const response = new ServerResponse(request);
    response.assignSocket(socket as ServerResponse['socket'] & Duplex);
    response.on('finish', () => socket.destroy());
    app.routing(request, response);
  });

  app.addHook('onRequest', async (request, reply) => {
    const upgrade = upgrades.get(request.raw);
    if (upgrade === undefined) return;
    const path = request.url.split('?', 1)[0] ?? '';
    if (path !== '/stage' && !path.startsWith('/stage/')) return;
    if (path !== EVENTS_PATH) return reply.code(404).send({ error: 'Not found' });
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin, request.host, allowedOrigins)) {
      return reply.code(403).send({ error: 'This origin may not open the stage connection' });
    }

    let relay: StageRelay | undefined;
    const seat = seats.take(addressKey(request.ip), () => {
      if (relay === undefined) upgrade.socket.destroy();
      else relay.end(1013, 'Seat taken by a newer connection; try again');
    });
    if (typeof seat === 'string') {
      const refusal = REFUSALS[seat];
      return reply.code(refusal.status).send({ error: refusal.error });
    }
    reply.hijack();
    // Completes at once, or answers the handshake's own error (400) and calls nothing.
    sockets.handleUpgrade(request.raw, upgrade.socket, upgrade.head, (browser) => {
      relay = new StageRelay({
        browser,
        stageEventsUrl,
        seat,
        joinTimeoutMs: limits.joinSeconds * 1000,
        log: request.log,
        onClosed: (closed) => {
          relays.delete(closed);
          heartbeatWhileOpen();
        },
      });
      relays.add(relay);
      heartbeatWhileOpen();
    });
    if (relay === undefined) seat.release();
  });

  // The pings run only while a relay is open: an idle API wakes for nothing (decision 0078).
  let heartbeat: NodeJS.Timeout | undefined;
  function heartbeatWhileOpen(): void {
    if (relays.size > 0 && heartbeat === undefined) {
      heartbeat = setInterval(() => {
        for (const relay of relays) relay.heartbeat();
      }, limits.pingSeconds * 1000);
      heartbeat.unref();
    } else if (relays.size === 0 && heartbeat !== undefined) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
  }

  app.addHook('preClose', async () => {
    clearInterval(heartbeat);
    for (const relay of relays) relay.end(1001, 'Server shutting down');
  });
  app.addHook('onClose', async () => {
    sockets.close();
  });
}
