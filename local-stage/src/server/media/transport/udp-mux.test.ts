/**
 * The one shared UDP port (udp-mux.ts): werift peer connections put on it connect, DTLS and data
 * included, to peers that reach them only there; a closed one leaves it. The first test guards
 * the werift members the mux reaches for (a werift upgrade that renames them fails here first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RTCPeerConnection, StunProtocol } from 'werift';
import { UdpMux, roomForBursts, stunUsername } from './udp-mux';

const PORT = 47450;
let mux: UdpMux | undefined;
const peers: RTCPeerConnection[] = [];

afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
  await mux?.close();
  mux = undefined;
});

/** A stage-side answerer on the mux and a plain werift offerer; resolves once data crossed. */
async function connectThroughMux(shared: UdpMux, text: string): Promise<string> {
  const client = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false });
  const stage = new RTCPeerConnection({
    iceServers: [],
    iceLite: true,
    iceUseIpv4: false,
    iceUseIpv6: false,
  });
  peers.push(client, stage);
  const channel = client.createDataChannel('check');
  await client.setLocalDescription(await client.createOffer());
  const received = new Promise<string>((resolve) =>
    stage.onDataChannel.subscribe((incoming) =>
      incoming.onMessage.subscribe((message) => resolve(String(message))),
    ),
  );
  await stage.setRemoteDescription(client.localDescription!);
  shared.attach(stage);
  await stage.setLocalDescription(await stage.createAnswer());
  expect(stage.localDescription?.sdp.match(/^a=candidate:.*$/gm)).toEqual([
    expect.stringMatching(new RegExp(` udp \\d+ 127\\.0\\.0\\.2 ${PORT} typ host`)),
  ]);
  await client.setRemoteDescription(stage.localDescription!);
  await new Promise<void>((resolve) =>
    channel.stateChanged.subscribe((state) => state === 'open' && resolve()),
  );
  channel.send(text);
  return received;
}

describe('one UDP port for every peer connection', () => {
  it('finds the werift members it relies on', () => {
    const peer = new RTCPeerConnection({ iceServers: [] });
    peers.push(peer);
    peer.addTransceiver('video', { direction: 'sendonly' });
    const connection = peer.dtlsTransports[0]!.iceTransport.connection as unknown as Record<
      string,
      unknown
    >;
    expect(Array.isArray(connection.protocols)).toBe(true);
    expect(typeof connection.ensureProtocol).toBe('function');
    expect(typeof connection.pairLocalProtocol).toBe('function');
    expect(typeof (new StunProtocol() as unknown as Record<string, unknown>).datagramReceived).toBe(
      'function',
    );
  });

  it('carries three peer connections at once on one port, and lets each go when it closes', async () => {
    mux = new UdpMux(PORT, ['127.0.0.2'], { udp4: '127.0.0.2' });
    await mux.open();
    const shared = mux;
    expect(
      await Promise.all(
        ['first', 'second', 'third'].map((text) => connectThroughMux(shared, text)),
      ),
    ).toEqual(['first', 'second', 'third']);
    expect(shared.connectionCount).toBe(3);
    await Promise.all(peers.splice(0).map((peer) => peer.close()));
    expect(shared.connectionCount).toBe(0);
  });

  it('refuses to open on a port already taken', async () => {
    mux = new UdpMux(PORT, ['127.0.0.2'], { udp4: '127.0.0.2' });
    await mux.open();
    const second = new UdpMux(PORT, ['127.0.0.2'], { udp4: '127.0.0.2' });
    await expect(second.open()).rejects.toThrow(/EADDRINUSE/);
    await second.close();
  });

  it('reads the ICE username of a STUN binding request, and nothing from other datagrams', () => {
    const request = Buffer.alloc(36);
    request.writeUInt16BE(0x0001, 0); // binding request
    request.writeUInt16BE(16, 2);
    request.writeUInt32BE(0x2112a442, 4);
    request.writeUInt16BE(0x0006, 20); // USERNAME
    request.writeUInt16BE(9, 22);
    request.write('abcd:wxyz', 24);
    expect(stunUsername(request)).toBe('abcd:wxyz');
    expect(stunUsername(Buffer.from([0x80, 0x60, 0, 1, 0, 0, 0, 0]))).toBeUndefined(); // RTP
    expect(stunUsername(Buffer.alloc(40, 0x16))).toBeUndefined(); // DTLS
  });

  it("gives a peer connection's own sockets the shared port's room for bursts", async () => {
    const peer = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false });
    peers.push(peer);
    peer.addTransceiver('video', { direction: 'recvonly' });
    await peer.setLocalDescription(await peer.createOffer());
    const sockets = (
      peer.dtlsTransports[0]?.iceTransport.connection as unknown as {
        protocols: { transport: { socket: import('node:dgram').Socket } }[];
      }
    ).protocols.map((protocol) => protocol.transport.socket);
    expect(sockets.length).toBeGreaterThan(0);
    const before = sockets.map((socket) => socket.getRecvBufferSize());
    roomForBursts(peer.dtlsTransports[0]?.iceTransport.connection);
    // The system's default (208 KB on Debian) was a camera's packets for half a busy second; the
    // shared port's 4 MB, as far as net.core.rmem_max allows (the kernel reports twice the size).
    sockets.forEach((socket, index) =>
      expect(socket.getRecvBufferSize()).toBeGreaterThan(before[index] ?? Infinity),
    );
  });
});
