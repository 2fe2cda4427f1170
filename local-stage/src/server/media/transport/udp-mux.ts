/**
 * One UDP port for every peer connection of the stage (`STAGE_UDP_PORTS=40000`), as MediaMTX and
 * mediasoup's WebRtcServer do: datagrams are told apart by the ICE username of the first STUN
 * request from a remote address (`stage-ufrag:peer-ufrag`), then by that address.
 *
 * werift 0.24 has no such mode: each peer connection opens sockets of its own. Without forking
 * it, each ICE connection is given a werift `StunProtocol` whose transport is this port (its
 * own gathering finds no address), through four members werift's types call private:
 * `Connection.protocols`, `ensureProtocol` and `pairLocalProtocol`, and
 * `StunProtocol.datagramReceived`. docs/decisions/0062 says why, and what a werift upgrade must
 * check (udp-mux.test.ts fails if they change).
 */
import { createSocket, Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import {
  Candidate,
  StunProtocol,
  candidateFoundation,
  candidatePriority,
  type RTCPeerConnection,
} from 'werift';

type Address = readonly [string, number];
type Family = 4 | 6;

/** The members of werift's ICE connection this uses (private in its types). */
interface IceConnectionInternals {
  localUsername: string;
  generation: number;
  protocols: StunProtocol[];
  ensureProtocol(protocol: StunProtocol): void;
  pairLocalProtocol(protocol: StunProtocol): void;
}

interface ProtocolInternals {
  datagramReceived(data: Buffer, address: Address): void;
}

/** One ICE connection's place on the port: a protocol per announced address. */
interface MuxEntry {
  connection: IceConnectionInternals;
  protocols: Record<Family, StunProtocol[]>;
}

const STUN_MAGIC_COOKIE = 0x2112a442;
const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Gives the sockets a peer connection gathered itself (no shared port, `STAGE_UDP_PORTS` unset)
 * the shared socket's room for bursts. A publisher's media all comes to its one socket: at the
 * system's default (208 KB here) a loop busy for half a second lost a burst of the camera's
 * packets, whose NACKed retransmissions then filled the camera's pacer until libwebrtc paused
 * its encoder (docs/benchmarks.md, "NACKs paced by the retransmission").
 */
export function roomForBursts(connection: unknown): void {
  // werift declares the ICE connection's protocols private; each holds its UDP transport.
  const protocols = (connection as { protocols?: { transport?: { socket?: unknown } }[] })
    .protocols;
  for (const protocol of protocols ?? []) {
    const socket = protocol.transport?.socket;
    if (!(socket instanceof Socket)) continue; // the shared port's mux: sized already
    try {
      socket.setRecvBufferSize(SOCKET_BUFFER_BYTES);
    } catch {
      // Kept at the system's default.
    }
  }
}

const USERNAME = 0x0006;

/** The USERNAME of a STUN message, or undefined (not STUN, or none). */
export function stunUsername(data: Buffer): string | undefined {
  if (data.length < 20 || data[0]! > 3 || data.readUInt32BE(4) !== STUN_MAGIC_COOKIE) {
    return undefined;
  }
  let offset = 20;
  while (offset + 4 <= data.length) {
    const type = data.readUInt16BE(offset);
    const length = data.readUInt16BE(offset + 2);
    if (type === USERNAME) return data.toString('utf8', offset + 4, offset + 4 + length);
    offset += 4 + length + ((4 - (length % 4)) % 4);
  }
  return undefined;
}

function transactionId(data: Buffer): string | undefined {
  // A STUN response or error (class bits 0b10, 0b11) carries the id of the request it answers.
  if (data.length < 20 || data[0]! > 3 || data.readUInt32BE(4) !== STUN_MAGIC_COOKIE) {
    return undefined;
  }
  return (data[0]! & 0x01) !== 0 ? data.toString('hex', 8, 20) : undefined;
}

export class UdpMux {
  private readonly sockets = new Map<Family, Socket>();
  private readonly entries = new Set<MuxEntry>();
  private readonly byRemote = new Map<string, MuxEntry>();
  private readonly attached = new WeakSet<object>();

  /**
   * @param addresses what each peer connection announces, on `port`
   * @param bind the address a family's socket binds to (a lone address of this host, so that its
   *   answers come from the address the peer asked); the wildcard address otherwise
   */
  constructor(
    readonly port: number,
    private readonly addresses: readonly string[],
    private readonly bind: { udp4?: string; udp6?: string } = {},
  ) {}

  /** Binds the port; rejects when it is taken (EADDRINUSE names it), leaving nothing bound. */
  async open(): Promise<void> {
    try {
      for (const family of new Set(families(this.addresses))) await this.openSocket(family);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private async openSocket(family: Family): Promise<void> {
    const socket = createSocket({ type: family === 4 ? 'udp4' : 'udp6', ipv6Only: family === 6 });
    socket.on('message', (data, remote) => this.receive(data, [remote.address, remote.port]));
    const address =
      (family === 4 ? this.bind.udp4 : this.bind.udp6) ?? (family === 4 ? '0.0.0.0' : '::');
    await new Promise<void>((resolve, reject) => {
      const refused = (error: Error) => {
        socket.close();
        reject(error);
      };
      socket.once('error', refused);
      socket.bind(this.port, address, () => {
        socket.off('error', refused);
        resolve();
      });
    });
    this.sockets.set(family, socket);
    // A datagram the system refuses to send (no route) is the peer's problem, not the stage's.
    socket.on('error', () => undefined);
    // Every session's packets queue here, not on a socket each: room for bursts (the system's
    // net.core.rmem_max may cap it lower).
    try {
      socket.setRecvBufferSize(SOCKET_BUFFER_BYTES);
      socket.setSendBufferSize(SOCKET_BUFFER_BYTES);
    } catch {
      // Kept at the system's default.
    }
  }

  async close(): Promise<void> {
    const sockets = [...this.sockets.values()];
    // Gone before closed: a peer connection still closing sends nothing to a closed socket.
    this.sockets.clear();
    await Promise.all(
      sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))),
    );
    this.entries.clear();
    this.byRemote.clear();
  }

  /** Peer connections on the port now (for tests and stats). */
  get connectionCount(): number {
    return this.entries.size;
  }

  /**
   * Puts `peer`'s ICE connections on the port, each announcing every address. Call it once its
   * transports exist (after addTransceiver or setRemoteDescription) and before
   * setLocalDescription; again for transports created since (idempotent).
   */
  attach(peer: RTCPeerConnection): void {
    for (const transport of peer.dtlsTransports) {
      const connection = transport.iceTransport.connection as unknown as IceConnectionInternals;
      if (this.attached.has(connection)) continue;
      this.attached.add(connection);
      const entry: MuxEntry = { connection, protocols: { 4: [], 6: [] } };
      for (const address of this.addresses) {
        const family: Family = isIPv4(address) ? 4 : 6;
        const protocol = this.protocolFor(entry, family, address);
        entry.protocols[family].push(protocol);
        connection.ensureProtocol(protocol);
        protocol.localIp = address;
        connection.protocols.push(protocol);
        protocol.localCandidate = new Candidate(
          candidateFoundation('host', 'udp', address),
          1,
          'udp',
          candidatePriority('host', { transport: 'udp' }),
          address,
          this.port,
          'host',
          undefined,
          undefined,
          undefined,
          connection.generation,
          connection.localUsername,
        );
        connection.pairLocalProtocol(protocol);
      }
      this.entries.add(entry);
    }
  }

  private protocolFor(entry: MuxEntry, family: Family, address: string): StunProtocol {
    const protocol = new StunProtocol();
    const socket = () => this.sockets.get(family);
    const transport = {
      type: 'udp' as const,
      closed: false,
      onData: (data: Buffer, from: Address) =>
        (protocol as unknown as ProtocolInternals).datagramReceived(data, from),
      send: async (data: Buffer, to?: Address) => {
        if (!to || transport.closed) return;
        // What this connection sends to, it hears back from (a response may come first).
        const key = `${to[0]}|${to[1]}`;
        if (!this.byRemote.has(key)) this.byRemote.set(key, entry);
        socket()?.send(data, to[1], to[0]);
      },
      close: async () => {
        transport.closed = true;
        this.release(entry);
      },
      get address() {
        return { address, port: socket()?.address().port ?? 0, family: `IPv${family}` };
      },
      get host() {
        return address;
      },
      get port() {
        return socket()?.address().port ?? 0;
      },
    };
    protocol.transport = transport as unknown as StunProtocol['transport'];
    return protocol;
  }

  private entryFor(localUfrag: string): MuxEntry | undefined {
    for (const entry of this.entries) {
      if (entry.connection.localUsername === localUfrag) return entry;
    }
    return undefined;
  }

  private release(entry: MuxEntry): void {
    if (!this.entries.delete(entry)) return;
    for (const [key, owner] of this.byRemote) if (owner === entry) this.byRemote.delete(key);
  }

  private receive(data: Buffer, from: Address): void {
    const key = `${from[0]}|${from[1]}`;
    // A check names the connection it is for: it wins over what the address was (a peer's new
    // session may come from an address an old one used).
    const localUfrag = stunUsername(data)?.split(':')[0];
    let entry = localUfrag === undefined ? undefined : this.entryFor(localUfrag);
    if (entry) this.byRemote.set(key, entry);
    else entry = this.byRemote.get(key);
    if (!entry) return;
    const mine = entry.protocols[isIPv4(from[0]) ? 4 : 6];
    // A response goes to the protocol that asked; anything else to the family's first.
    const id = transactionId(data);
    const target =
      (id !== undefined && mine.find((protocol) => id in protocol.transactions)) || mine[0];
    if (!target) return;
    (target.transport as unknown as { onData: (data: Buffer, from: Address) => void }).onData(
      data,
      from,
    );
  }
}

function families(list: readonly string[]): Family[] {
  return list.map((address) => (isIPv4(address) ? 4 : 6));
}
