/** The edits the stage makes to werift's session descriptions, with sdp-transform. */
import { parse, write } from 'sdp-transform';

/**
 * `a=ice-lite` at the session level, where RFC 8839 puts it and the only place libwebrtc reads it:
 * werift writes it in each media section, and a libwebrtc peer that misses it waits to be
 * nominated too, so neither side ever nominates a pair.
 */
export function withSessionIceLite(sdp: string): string {
  const description = parse(sdp);
  // Typed as session-level only: werift's are in the sections.
  const inSections = description.media.filter((section) => Object.hasOwn(section, 'icelite'));
  if (inSections.length === 0) return sdp;
  for (const section of inSections) Reflect.deleteProperty(section, 'icelite');
  return write({ ...description, icelite: 'ice-lite' });
}

/**
 * An offer that makes the stage the DTLS server (`a=setup:passive` for werift's `actpass`): the
 * viewer's ClientHello leaves once the stage's nomination has reached it, which is when the
 * stage's side is ready too (early-dtls.ts keeps it if it is a little early). The other way
 * round, werift's ClientHello went out before the viewer could take it: one retransmission more.
 */
export function asDtlsServer(offer: string): string {
  const description = parse(offer);
  const actpass = [description, ...description.media].filter((part) => part.setup === 'actpass');
  if (actpass.length === 0) return offer;
  for (const part of actpass) part.setup = 'passive';
  return write(description);
}
