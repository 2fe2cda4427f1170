/**
 * The doctor's TURN check (decision 0063): for each TURN_URLS URI, a real TURN Allocate (RFC 8656)
 * with a credential made from TURN_SECRET, as a browser would make it, over the URI's transport
 * (UDP, TCP, or TLS with the certificate checked as a browser checks it); the allocation is
 * released at once. It tells apart a server that does not answer, a certificate browsers refuse,
 * and a secret that is not coturn's `static-auth-secret` (401 to the authenticated request):
 * each of them otherwise shows only as a viewer behind a firewall who never gets a picture.
 */
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import {
  parseStun,
  STUN_ATTRIBUTE,
  STUN_CLASS,
  STUN_METHOD,
  stunAttribute,
  stunErrorCode,
  stunRequest,
  type StunMessage,
} from '@tailcam/protocol/stun-message';
import { turnIceServers, type TurnSettings } from '@tailcam/protocol/turn';

const TIMEOUT_MS = 3_000;

/** One request at a time over a UDP, TCP or TLS transport to the TURN server. */
interface StunTransport {
  exchange(message: Buffer): Promise<StunMessage>;
  close(): void;
}

function streamTransport(socket: Socket): StunTransport {
  let buffered = Buffer.alloc(0);
  let waiting: ((answer: StunMessage) => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 20 && buffered.length >= 20 + buffered.readUInt16BE(2)) {
      const length = 20 + buffered.readUInt16BE(2);
      const answer = parseStun(buffered.subarray(0, length));
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
  let waiting: ((answer: StunMessage) => void) | undefined;
  socket.on('message', (message) => {
    const answer = parseStun(message);
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
    const udpRelay = stunAttribute(STUN_ATTRIBUTE.REQUESTED_TRANSPORT, Buffer.from([17, 0, 0, 0]));
    const challenge = await transport.exchange(stunRequest(STUN_METHOD.ALLOCATE, [udpRelay]));
    const realm = challenge.attributes.get(STUN_ATTRIBUTE.REALM);
    const nonce = challenge.attributes.get(STUN_ATTRIBUTE.NONCE);
    if (
      challenge.type !== (STUN_METHOD.ALLOCATE | STUN_CLASS.ERROR) ||
      stunErrorCode(challenge) !== 401 ||
      !realm ||
      !nonce
    ) {
      return 'answered, but not as a TURN server asking for long-term credentials (coturn with use-auth-secret)';
    }
    const key = createHash('md5')
      .update(`${credential.username}:${realm.toString('utf8')}:${credential.credential}`)
      .digest();
    const identity = [
      stunAttribute(STUN_ATTRIBUTE.USERNAME, Buffer.from(credential.username)),
      stunAttribute(STUN_ATTRIBUTE.REALM, realm),
      stunAttribute(STUN_ATTRIBUTE.NONCE, nonce),
    ];
    const allocated = await transport.exchange(
      stunRequest(STUN_METHOD.ALLOCATE, [udpRelay, ...identity], key),
    );
    if (allocated.type === (STUN_METHOD.ALLOCATE | STUN_CLASS.SUCCESS)) {
      // Released at once: a lifetime of 0.
      const none = stunAttribute(STUN_ATTRIBUTE.LIFETIME, Buffer.alloc(4));
      await transport
        .exchange(stunRequest(STUN_METHOD.REFRESH, [none, ...identity], key))
        .catch(() => undefined);
      return undefined;
    }
    const code = stunErrorCode(allocated);
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
