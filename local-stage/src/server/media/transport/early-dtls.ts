/**
 * werift starts a peer connection's DTLS transport a few milliseconds after ICE has a nominated
 * pair (its check loop runs on a 20 ms timer), and drops whatever DTLS arrives before. A viewer,
 * the DTLS client, sends its ClientHello as soon as the stage's nomination reaches it, so that
 * ClientHello was lost and the handshake waited for its retransmission: 50–60 ms more to the
 * first frame, seen in packet captures of Chromium joins. This keeps such early records and
 * hands them to the DTLS transport once it listens.
 */
import type { RTCDtlsTransport } from 'werift';

const MAX_EARLY_RECORDS = 8;

/** DTLS records start with a content type from 20 to 63 (RFC 7983 demultiplexing). */
function isDtlsRecord(data: Uint8Array): boolean {
  const first = data[0];
  return first !== undefined && first > 19 && first < 64;
}

export function keepEarlyDtls(transport: RTCDtlsTransport): void {
  const ice = transport.iceTransport.connection;
  const early: Buffer[] = [];
  const held = ice.onData.subscribe((data) => {
    if (transport.state === 'new' && isDtlsRecord(data) && early.length < MAX_EARLY_RECORDS) {
      early.push(data);
    }
  });
  const watch = transport.onStateChange.subscribe((state) => {
    if (state === 'new') return;
    held.unSubscribe();
    watch.unSubscribe();
    if (state !== 'connecting' || early.length === 0) return;
    // 'connecting' is announced just before the DTLS endpoint is created, in the same task: hand
    // over in a microtask, after it and before any packet that arrives later. (A macrotask let a
    // live ClientHello retransmission in first, and its answer could bring the viewer's second
    // ClientHello before the replayed first one: werift then made new keys for the old hello
    // and the handshake never finished.)
    queueMicrotask(() => {
      for (const record of early.splice(0)) ice.onData.execute(record);
    });
  });
}
