import { Event, type RTCDtlsTransport } from 'werift';
import { describe, expect, it } from 'vitest';
import { keepEarlyDtls } from './early-dtls';

/** The parts of werift's DTLS transport that keepEarlyDtls touches. */
function fakeTransport() {
  const onData = new Event<[Buffer]>();
  const onStateChange = new Event<['closed' | 'new' | 'connected' | 'failed' | 'connecting']>();
  const transport = { state: 'new', iceTransport: { connection: { onData } }, onStateChange };
  return { transport, onData, onStateChange };
}

const clientHello = Buffer.from([22, 0xfe, 0xfd, 0, 0]);
const stun = Buffer.from([0, 1, 0, 0]);

describe('keepEarlyDtls', () => {
  it('replays DTLS records that came before the DTLS endpoint listened, once it does', async () => {
    const { transport, onData, onStateChange } = fakeTransport();
    keepEarlyDtls(transport as unknown as RTCDtlsTransport);
    onData.execute(clientHello);
    onData.execute(stun);

    const delivered: Buffer[] = [];
    transport.state = 'connecting';
    onStateChange.execute('connecting');
    onData.subscribe((data) => delivered.push(data)); // the DTLS endpoint, created just after
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toEqual([clientHello]);
  });

  it('replays before any record that arrives once the endpoint listens (a retransmission)', async () => {
    const { transport, onData, onStateChange } = fakeTransport();
    keepEarlyDtls(transport as unknown as RTCDtlsTransport);
    onData.execute(clientHello);

    const delivered: Buffer[] = [];
    transport.state = 'connecting';
    onStateChange.execute('connecting');
    onData.subscribe((data) => delivered.push(data));
    // Whatever runs after the state change, even the very next microtask, comes after the replay.
    const retransmission = Buffer.from([22, 0xfe, 0xfd, 0, 1]);
    await Promise.resolve();
    onData.execute(retransmission);
    expect(delivered).toEqual([clientHello, retransmission]);
  });

  it('holds nothing once the transport has started, and replays nothing when it fails', async () => {
    const { transport, onData, onStateChange } = fakeTransport();
    keepEarlyDtls(transport as unknown as RTCDtlsTransport);
    onData.execute(clientHello);
    transport.state = 'failed';
    onStateChange.execute('failed');
    const delivered: Buffer[] = [];
    onData.subscribe((data) => delivered.push(data));
    onData.execute(clientHello);
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toEqual([clientHello]); // only the live one
  });
});
