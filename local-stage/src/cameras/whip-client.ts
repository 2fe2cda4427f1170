/**
 * The publishing side of WHIP (RFC 9725) for a libwebrtc peer connection: the offer is POSTed with
 * the Bearer token once ICE gathering is done (so it carries every candidate and nothing needs
 * trickling), the answer is applied, and the session is DELETEd when it ends.
 */
import { z } from 'zod';
import type { NodePeerConnection } from './wrtc';

/** Host candidates only (no STUN): gathering takes ~0.1 s; an offer never waits longer than this. */
const GATHER_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 5_000;
/** A DELETE is a courtesy (the server reaps a dead session anyway): it never holds a close up. */
const DELETE_TIMEOUT_MS = 1_000;

const errorBodySchema = z.object({ error: z.string() });

/** The server refused the offer, or could not be reached (`status` undefined). */
export class WhipRequestError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'WhipRequestError';
  }
}

export interface WhipSession {
  /** The session's resource (the POST's Location, resolved against the endpoint). */
  readonly location: URL;
  /** Ends the session on the server (DELETE). Never throws. */
  end(): Promise<void>;
}

export interface PublishOverWhipOptions {
  /** The WHIP endpoint, e.g. http://127.0.0.1:8091/stage/whip/N743AS. */
  endpoint: URL;
  token: string;
  /** A peer connection with its send-only transceivers added and no description yet. */
  peer: NodePeerConnection;
  /** Edits the answer before it is applied (bitrate hints). */
  editAnswer?: (sdp: string) => string;
  /** Edits the offer before it is POSTed (tests: a publisher that offers less). */
  editOffer?: (sdp: string) => string;
}

/** Offers `peer`'s media at `endpoint`; resolves once the answer is applied. */
export async function publishOverWhip(options: PublishOverWhipOptions): Promise<WhipSession> {
  const { endpoint, token, peer } = options;
  await peer.setLocalDescription(await peer.createOffer());
  await iceGatheringDone(peer);
  const offer = peer.localDescription?.sdp;
  if (!offer) throw new Error('the peer connection has no local description');

  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
      body: options.editOffer ? options.editOffer(offer) : offer,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new WhipRequestError(
      undefined,
      `WHIP POST to ${endpoint.href} failed: ${messageOf(error)}`,
    );
  }
  const body = await response.text();
  if (response.status !== 201) {
    throw new WhipRequestError(
      response.status,
      `WHIP POST to ${endpoint.href} answered ${response.status}: ${errorText(body)}`,
    );
  }
  const location = response.headers.get('location');
  if (!location) throw new WhipRequestError(201, 'the WHIP answer has no Location');
  const session: WhipSession = {
    location: new URL(location, endpoint),
    end: () => deleteSession(new URL(location, endpoint), token),
  };
  const contentType = response.headers.get('content-type') ?? '';
  try {
    if (!/^application\/sdp\b/i.test(contentType)) {
      throw new Error(`the WHIP answer is ${contentType || 'untyped'}, not application/sdp`);
    }
    const answer = options.editAnswer ? options.editAnswer(body) : body;
    await peer.setRemoteDescription({ type: 'answer', sdp: answer });
  } catch (error) {
    // Nothing half-open is left on the server for an answer that could not be used.
    await session.end();
    throw error;
  }
  return session;
}

function iceGatheringDone(peer: NodePeerConnection): Promise<void> {
  if (peer.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      peer.onicegatheringstatechange = null;
      resolve();
    };
    // Whatever is gathered by then goes: the server is ICE lite, the checks start from here.
    const timer = setTimeout(done, GATHER_TIMEOUT_MS);
    peer.onicegatheringstatechange = () => {
      if (peer.iceGatheringState === 'complete') done();
    };
  });
}

async function deleteSession(location: URL, token: string): Promise<void> {
  try {
    const response = await fetch(location, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
    });
    await response.body?.cancel();
  } catch {
    // The server is gone or the session already ended: nothing to end.
  }
}

/** The `{error}` of a JSON error body, else the body's start. */
function errorText(body: string): string {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(body));
    if (parsed.success) return parsed.data.error;
  } catch {
    // not JSON
  }
  return body.slice(0, 200) || '(no body)';
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    return error.cause instanceof Error
      ? `${error.message} (${error.cause.message})`
      : error.message;
  }
  return String(error);
}
