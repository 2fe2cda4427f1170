/**
 * Reads a participant token in the browser (no signature check: the stage does that). Like the
 * IVS SDK, a string that is not a JWT with the stage's claims is refused at once.
 */
import type { OfferedIceServer } from '../signalling';
import { StageErrorCategory, StageErrorCode } from './enums';
import { ivsError } from './errors';

export interface StageTokenClaims {
  participantId: string;
  stageId: string;
  userId: string;
  attributes: Record<string, string>;
  eventsUrl: string;
  whipUrl: string;
  canSubscribe: boolean;
  canPublish: boolean;
  expiresAtMs: number | undefined;
  /**
   * The token's TURN servers and their short-lived credentials (`ice_servers`, decision 0063),
   * for every peer connection: the app gives the SDK none, as it gives IVS's none.
   */
  iceServers: RTCIceServer[];
}

function base64UrlDecode(part: string): string {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A token's endpoint as an absolute URL: as it is, or, for a path (`/stage/events`: the API names
 * the stage by configuration only, and without PUBLIC_URL that is a path on its own origin),
 * resolved on the page's origin, with `ws:`/`wss:` for the socket. Undefined when it is neither.
 */
function endpointUrl(value: unknown, kind: 'socket' | 'http'): string | undefined {
  if (typeof value !== 'string') return undefined;
  const isPath = value.startsWith('/') && !value.startsWith('//');
  try {
    if (isPath) {
      if (typeof location === 'undefined') return undefined;
      const url = new URL(value, location.href);
      if (kind === 'socket') url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      return url.toString();
    }
    const url = new URL(value);
    const protocols = kind === 'socket' ? ['ws:', 'wss:'] : ['http:', 'https:'];
    return protocols.includes(url.protocol) ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `ice_servers` claim's well-formed entries (`turn:`/`turns:`/`stun:` URLs, string
 * credentials); anything else is left out, so that a bad entry never stops a join.
 */
export function iceServersOf(value: unknown): OfferedIceServer[] {
  if (!Array.isArray(value)) return [];
  const servers: OfferedIceServer[] = [];
  for (const entry of value) {
    if (!isRecord(entry)) continue;
    const { urls, username, credential } = entry;
    const list = Array.isArray(urls) ? urls : [urls];
    const valid = list.filter(
      (url): url is string => typeof url === 'string' && /^(turns?|stun):/.test(url),
    );
    if (valid.length === 0 || typeof username !== 'string' || typeof credential !== 'string') {
      continue;
    }
    servers.push({ urls: valid, username, credential });
  }
  return servers;
}

/** Parses the claims; throws `[JOIN_ERROR] Token is malformed` when they are not there. */
export function parseStageToken(token: unknown): StageTokenClaims {
  const malformed = () => ivsError(StageErrorCode.TOKEN_MALFORMED, StageErrorCategory.JOIN_ERROR);
  if (typeof token !== 'string') throw malformed();
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) {
    throw malformed();
  }
  let claims: unknown;
  try {
    claims = JSON.parse(base64UrlDecode(parts[1] ?? ''));
  } catch {
    throw malformed();
  }
  if (!isRecord(claims)) throw malformed();
  const { jti, topic, user_id, attributes, capabilities, events_url, whip_url, exp, ice_servers } =
    claims;
  const eventsUrl = endpointUrl(events_url, 'socket');
  if (typeof jti !== 'string' || typeof topic !== 'string' || eventsUrl === undefined) {
    throw malformed();
  }
  const stringAttributes: Record<string, string> = {};
  if (isRecord(attributes)) {
    for (const [key, value] of Object.entries(attributes)) {
      if (typeof value === 'string') stringAttributes[key] = value;
    }
  }
  return {
    participantId: jti,
    stageId: topic,
    userId: typeof user_id === 'string' ? user_id : '',
    attributes: stringAttributes,
    eventsUrl,
    whipUrl: endpointUrl(whip_url, 'http') ?? '',
    canSubscribe: isRecord(capabilities) && capabilities.allow_subscribe === true,
    canPublish: isRecord(capabilities) && capabilities.allow_publish === true,
    expiresAtMs: typeof exp === 'number' ? exp * 1000 : undefined,
    iceServers: iceServersOf(ice_servers),
  };
}
