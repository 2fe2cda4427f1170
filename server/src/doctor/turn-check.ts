/**
 * The doctor's TURN check (decision 0063): for each TURN_URLS URI, a real TURN Allocate (RFC 8656)
 * with a credential made from TURN_SECRET, as a browser would make it, over the URI's transport
 * (UDP, TCP, or TLS with the certificate checked as a browser checks it); the allocation is
 * released at once. It tells apart a server that does not answer, a certificate browsers refuse,
 * and a secret that is not coturn's `static-auth-secret` (401 to the authenticated request):
 * each of them otherwise shows only as a viewer behind a firewall who never gets a picture.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { turnIceServers, type TurnSettings } from '@tailcam/protocol/turn';

const MAGIC_COOKIE = 0x2112a442;
const ALLOCATE = 0x0003;
const REFRESH = 0x0004;
const SUCCESS = 0x0100;
const ERROR = 0x0110;
const ATTRIBUTE = {
  USERNAME: 0x0006,
  MESSAGE_INTEGRITY: 0x0008,
  ERROR_CODE: 0x0009,
  LIFETIME: 0x000d,
  REALM: 0x0014,
  NONCE: 0x0015,
  REQUESTED_TRANSPORT: 0x0019,
} as const;
const TIMEOUT_MS = 3_000;

interface StunAnswer {
  type: number;
  attributes: Map<number, Buffer>;
}

function attribute(type: number, value: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(value.length, 2);
  const padding = Buffer.alloc((4 - (value.length % 4)) % 4);
  return Buffer.concat([header, value, padding]);
}

/** A STUN request; with `key`, MESSAGE-INTEGRITY over it (RFC 8489 §14.5). */
function request(method: number, attributes: Buffer[], key?: Buffer): Buffer {
  const body = Buffer.concat(attributes);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(method, 0);
  header.writeUInt16BE(body.length + (key === undefined ? 0 : 24), 2);
  header.writeUInt32BE(MAGIC_COOKIE, 4);
  randomBytes(12).copy(header, 8);
  const message = Buffer.concat([header, body]);
  if (key === undefined) return message;
  const integrity = createHmac('sha1', key).update(message).digest();
  return Buffer.concat([message, attribute(ATTRIBUTE.MESSAGE_INTEGRITY, integrity)]);
}

function parse(message: Buffer): StunAnswer | undefined {
  if (message.length < 20 || message.readUInt32BE(4) !== MAGIC_COOKIE) return undefined;
  const attributes = new Map<number, Buffer>();
  let offset = 20;
  const end = Math.min(message.length, 20 + message.readUInt16BE(2));
  while (offset + 4 <= end) {
    const type = message.readUInt16BE(offset);
    const length = message.readUInt16BE(offset + 2);
    attributes.set(type, message.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length + ((4 - (length % 4)) % 4);
  }
  return { type: message.readUInt16BE(0), attributes };
}

function errorCode(answer: StunAnswer): number | undefined {
  const value = answer.attributes.get(ATTRIBUTE.ERROR_CODE);
  return value === undefined || value.length < 4 ? undefined : value[2]! * 100 + value[3]!;
}

/** One request at a time over a UDP, TCP or TLS transport to the TURN server. */
interface StunTransport {
  exchange(message: Buffer): Promise<StunAnswer>;
  close(): void;
}

function streamTransport(socket: Socket): StunTransport {
  let buffered = Buffer.alloc(0);
  let waiting: ((answer: StunAnswer) => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 20 && buffered.length >= 20 + buffered.readUInt16BE(2)) {
      const length = 20 + buffered.readUInt16BE(2);
      const answer = parse(buffered.subarray(0, length));
      buffered = buffered.subarray(length);
      if (answer !== undefined) waiting?.(answer);
    }
  });
  return {
    exchange: (message) =>
      new Promise((resolve, reject) => {
        waiting = resolve;
        socket.once('error', reject);
        socket.write(message);
      }),
    close: () => socket.destroy(),
  };
}

function udpTransport(host: string, port: number): StunTransport {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  let waiting: ((answer: StunAnswer) => void) | undefined;
  socket.on('message', (message) => {
    const answer = parse(message);
    if (answer !== undefined) waiting?.(answer);
  });
  return {
    exchange: (message) =>
      new Promise((resolve, reject) => {
        waiting = resolve;
        socket.once('error', reject);
        socket.send(message, port, host);
      }),
    close: () => socket.close(),
  };
}

function opened(socket: Socket, event: 'connect' | 'secureConnect'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    socket.once(event, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The URI's parts (already validated at start by turnUriProblem). */
function parseTurnUri(uri: string): {
  tls: boolean;
  transport: 'udp' | 'tcp';
  host: string;
  port: number;
} {
  const match = /^(turns?):(\[[^\]]+\]|[^:?]+)(?::(\d+))?(?:\?transport=(udp|tcp))?$/.exec(uri);
  if (match === null) throw new Error(`not a TURN URI: ${uri}`);
  const tls = match[1] === 'turns';
  return {
    tls,
    transport: tls ? 'tcp' : match[4] === 'tcp' ? 'tcp' : 'udp',
    host: (match[2] ?? '').replace(/^\[|\]$/g, ''),
    port: match[3] === undefined ? (tls ? 5349 : 3478) : Number(match[3]),
  };
}

async function transportFor(uri: string): Promise<StunTransport> {
  const { tls, transport, host, port } = parseTurnUri(uri);
  if (tls) {
    const servername = /^[\d.]+$|:/.test(host) ? undefined : host;
    return streamTransport(await opened(connectTls({ host, port, servername }), 'secureConnect'));
  }
  if (transport === 'tcp')
    return streamTransport(await opened(connectTcp({ host, port }), 'connect'));
  return udpTransport(host, port);
}

/** What Allocate with a TURN_SECRET credential gives at `uri`: undefined when it succeeds. */
async function allocationProblem(
  uri: string,
  credential: { username: string; credential: string },
): Promise<string | undefined> {
  const transport = await transportFor(uri);
  try {
    const udpRelay = attribute(ATTRIBUTE.REQUESTED_TRANSPORT, Buffer.from([17, 0, 0, 0]));
    const challenge = await transport.exchange(request(ALLOCATE, [udpRelay]));
    const realm = challenge.attributes.get(ATTRIBUTE.REALM);
    const nonce = challenge.attributes.get(ATTRIBUTE.NONCE);
    if (challenge.type !== (ALLOCATE | ERROR) || errorCode(challenge) !== 401 || !realm || !nonce) {
      return 'answered, but not as a TURN server asking for long-term credentials (coturn with use-auth-secret)';
    }
    const key = createHash('md5')
      .update(`${credential.username}:${realm.toString('utf8')}:${credential.credential}`)
      .digest();
    const identity = [
      attribute(ATTRIBUTE.USERNAME, Buffer.from(credential.username)),
      attribute(ATTRIBUTE.REALM, realm),
      attribute(ATTRIBUTE.NONCE, nonce),
    ];
    const allocated = await transport.exchange(request(ALLOCATE, [udpRelay, ...identity], key));
    if (allocated.type === (ALLOCATE | SUCCESS)) {
      // Released at once: a lifetime of 0.
      const none = attribute(ATTRIBUTE.LIFETIME, Buffer.alloc(4));
      await transport.exchange(request(REFRESH, [none, ...identity], key)).catch(() => undefined);
      return undefined;
    }
    const code = errorCode(allocated);
    if (code === 401) {
      return "refused TURN_SECRET's credential (401): it is not coturn's static-auth-secret, or use-auth-secret is off";
    }
    return `refused the allocation (${code ?? 'no error code'})`;
  } finally {
    transport.close();
  }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${TIMEOUT_MS / 1000} s (${what})`)),
      TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One line per URI: undefined when it allocates, else what is wrong. */
export async function checkTurnServers(
  settings: TurnSettings,
): Promise<{ uri: string; problem: string | undefined }[]> {
  const [server] = turnIceServers(settings, 'tailcam-doctor');
  if (server === undefined) return [];
  return Promise.all(
    settings.urls.map(async (uri) => {
      try {
        return { uri, problem: await withTimeout(allocationProblem(uri, server), uri) };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { uri, problem: message };
      }
    }),
  );
}
