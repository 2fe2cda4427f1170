/** The edits the stage makes to werift's session descriptions. */

/**
 * `a=ice-lite` at the session level, where RFC 8839 puts it and the only place libwebrtc reads it:
 * werift writes it in each media section, and a libwebrtc peer that misses it waits to be
 * nominated too, so neither side ever nominates a pair.
 */
export function withSessionIceLite(sdp: string): string {
  if (!/^a=ice-lite\r?$/m.test(sdp)) return sdp;
  return sdp.replace(/^a=ice-lite\r?\n/gm, '').replace(/^(t=.*\r?\n)/m, '$1a=ice-lite\r\n');
}

/**
 * An offer that makes the stage the DTLS server (`a=setup:passive` for werift's `actpass`): the
 * viewer's ClientHello leaves once the stage's nomination has reached it, which is when the
 * stage's side is ready too (early-dtls.ts keeps it if it is a little early). The other way
 * round, werift's ClientHello went out before the viewer could take it: one retransmission more.
 */
export function asDtlsServer(offer: string): string {
  return offer.replace(/^a=setup:actpass(?=\r?$)/gm, 'a=setup:passive');
}
