/**
 * The stage's two HTTP endpoints for WebRTC sessions, under /stage/ so that the API's origin
 * reaches them as it reaches the rest of the stage: WHIP (RFC 9725) for publishers, WHEP for
 * players. Both have the same shape:
 *   POST    /stage/{whip|whep}/{STAGE}        offer (application/sdp) + Bearer token
 *                                             → 201, Location, the answer, and with TURN
 *                                               configured its `Link: rel="ice-server"`s
 *   PATCH   /stage/{whip|whep}/{STAGE}/{ID}   trickled candidates (application/trickle-ice-sdpfrag)
 *                                             → 204 (429 beyond the session's share, admission.ts)
 *   DELETE  /stage/{whip|whep}/{STAGE}/{ID}   ends the session → 200
 *   OPTIONS either                            CORS preflight → 204; on /stage/{whip|whep}/{STAGE}
 *                                             with a token the POST would take (a native
 *                                             client's, never a browser's preflight), the
 *                                             ice-server Links too (decision 0063)
 * Open to any origin: the Bearer token is the authority and no cookie is read, so a page on
 * another origin works. A session's PATCH and DELETE carry the token of its POST. Errors are JSON
 * `{error}` with the status that says what to change (docs/product.md#whip).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { iceServerLinks, type IceServer } from '@tailcam/protocol/turn';
import type { SdpEndpoint } from '../media/sdp/sdp-session';
import { readSdpFragment } from '../media/sdp/offer-sdp';
import { EndpointError } from '../media/sdp/endpoint-error';

/** An SDP offer is a few kilobytes; a body larger than this is refused before it is parsed. */
export const MAX_WHIP_BODY_BYTES = 64 * 1024;

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, If-Match, ETag',
  // Allow-Methods too: a WHIP client on another origin (Eyevinn's) reads it from its own OPTIONS
  // to learn that trickle ICE is supported, and otherwise waits for its ICE gathering to end.
  'access-control-expose-headers':
    'Location, Link, ETag, Accept-Patch, Accept-Post, Access-Control-Allow-Methods',
  'access-control-max-age': '600',
};

const ENDPOINT = /^\/stage\/(whip|whep)(?:\/([A-Za-z0-9_-]{1,64})(?:\/([A-Za-z0-9-]{1,64}))?)?$/;

/** The endpoint a path is under (`whip` or `whep`), if either. */
export function sdpEndpointOf(path: string): 'whip' | 'whep' | undefined {
  const match = /^\/stage\/(whip|whep)(\/|$)/.exec(path);
  return match?.[1] === 'whip' || match?.[1] === 'whep' ? match[1] : undefined;
}

/** The ICE servers a session's holder is given (TURN credentials for that user), or none. */
export type IceServersFor = (userId: string) => IceServer[];

export async function handleSdpEndpoint(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  endpoint: SdpEndpoint,
  iceServersFor: IceServersFor = () => [],
): Promise<void> {
  try {
    await route(request, response, path, endpoint, iceServersFor);
  } catch (error) {
    if (!(error instanceof EndpointError)) throw error;
    answerError(response, error);
  }
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  endpoint: SdpEndpoint,
  iceServersFor: IceServersFor,
): Promise<void> {
  const match = ENDPOINT.exec(path);
  const stageId = match?.[2];
  const sessionId = match?.[3];
  const method = request.method ?? 'GET';
  const name = endpoint.name.toUpperCase();
  if (!stageId || !endpoint.hasStage(stageId)) {
    throw new EndpointError(
      404,
      `No such stage: the ${name} URL is /stage/${endpoint.name}/ and a tail number`,
    );
  }
  if (method === 'OPTIONS') {
    // A client that gathers before it posts (Meetecho's whip-client -f) asks here, with its token.
    const token = sessionId === undefined ? optionalBearerToken(request) : undefined;
    const holder = token === undefined ? undefined : await endpoint.tokenHolder(stageId, token);
    const links = holder === undefined ? [] : iceServerLinks(iceServersFor(holder));
    response.writeHead(204, {
      ...CORS_HEADERS,
      ...(links.length > 0 ? { link: links } : {}),
      ...(sessionId
        ? { 'accept-patch': 'application/trickle-ice-sdpfrag' }
        : { 'accept-post': 'application/sdp' }),
    });
    response.end();
    return;
  }
  if (sessionId === undefined) {
    if (method !== 'POST') throw methodNotAllowed('POST, OPTIONS');
    requireContentType(request, 'application/sdp');
    const token = bearerToken(request);
    const offer = await readBody(request);
    const created = await endpoint.create(stageId, token, offer.toString('utf8'));
    if (response.destroyed) {
      // The client gave up before its answer (its request timed out, its page closed): it cannot
      // connect to the session nor end it, so the session ends now rather than hold its seat and
      // its publisher's listener until the connect timeout.
      endpoint.session(stageId, created.id)?.end();
      return;
    }
    const body = Buffer.from(created.answer);
    // RFC 9725 §4.6. A client that does not trickle has gathered before it sees them: it needs an
    // ICE server of its own, or to trickle (docs/deployment.md#whip-and-whep-clients-behind-firewalls).
    const links = iceServerLinks(iceServersFor(created.userId));
    response.writeHead(201, {
      ...CORS_HEADERS,
      ...(links.length > 0 ? { link: links } : {}),
      location: `/stage/${endpoint.name}/${stageId}/${created.id}`,
      'content-type': 'application/sdp',
      'content-length': body.length,
      'cache-control': 'no-store',
    });
    response.end(body);
    return;
  }

  const session = endpoint.session(stageId, sessionId);
  if (!session) throw new EndpointError(404, `No such ${name} session (it has ended)`);
  if (method !== 'PATCH' && method !== 'DELETE') throw methodNotAllowed('PATCH, DELETE, OPTIONS');
  if (!session.holdsToken(bearerToken(request))) {
    throw new EndpointError(403, "The token is not this session's");
  }
  if (method === 'DELETE') {
    session.end();
    answerEmpty(response, 200);
    return;
  }
  if (!session.seat.takePatch()) {
    const most = session.seat.limits.patchesPerSession;
    throw new EndpointError(429, `Too many trickle ICE updates for this session (at most ${most})`);
  }
  requireContentType(request, 'application/trickle-ice-sdpfrag');
  const fragment = readSdpFragment((await readBody(request)).toString('utf8'));
  if (fragment.iceUfrag !== undefined && fragment.iceUfrag !== session.iceUfrag) {
    throw new EndpointError(
      422,
      'ICE restarts are not supported: end the session and start a new one',
    );
  }
  // The stage is an ICE lite agent with its candidates in the answer: the other side's own
  // checks reach it, so its trickled candidates are taken and not needed.
  answerEmpty(response, 204);
}

function optionalBearerToken(request: IncomingMessage): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

function bearerToken(request: IncomingMessage): string {
  const token = optionalBearerToken(request);
  if (token === undefined) {
    throw new EndpointError(401, 'A Bearer token is needed (Authorization: Bearer …)');
  }
  return token;
}

function requireContentType(request: IncomingMessage, type: string): void {
  const given = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (given !== type) throw new EndpointError(415, `The body must be ${type}`);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_WHIP_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_WHIP_BODY_BYTES) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(): EndpointError {
  return new EndpointError(413, `The body is larger than ${MAX_WHIP_BODY_BYTES / 1024} KiB`);
}

function methodNotAllowed(allow: string): EndpointError & { allow: string } {
  return Object.assign(new EndpointError(405, `Use ${allow.replace(', OPTIONS', '')}`), { allow });
}

function answerError(response: ServerResponse, error: EndpointError): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ error: error.message });
  response.writeHead(error.status, {
    ...CORS_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...(error.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    ...('allow' in error && typeof error.allow === 'string' ? { allow: error.allow } : {}),
    ...(error.status === 503 ? { 'retry-after': '5' } : {}),
  });
  response.end(body);
}

function answerEmpty(response: ServerResponse, status: number): void {
  response.writeHead(status, { ...CORS_HEADERS, 'cache-control': 'no-store' });
  response.end();
}
