/** What Opus (RFC 6716) packets say of themselves: how long each plays. */

/** Frame sizes in tenths of a millisecond by TOC configuration (RFC 6716 3.1, Table 2). */
const OPUS_FRAME_TENTHS_MS = [
  ...[100, 200, 400, 600, 100, 200, 400, 600, 100, 200, 400, 600], // SILK NB, MB, WB
  ...[100, 200, 100, 200], // Hybrid SWB, FB
  ...[25, 50, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200, 25, 50, 100, 200], // CELT
];

/**
 * How long an Opus packet plays (RFC 6716 3.1: its TOC byte's frame size times its frame count),
 * in ms; undefined for a packet too short to say. A browser times Opus in WebM by this, not by
 * the gap to the next packet, so a recording's audio must be written with it.
 */
export function opusPacketDurationMs(packet: Uint8Array): number | undefined {
  const toc = packet[0];
  if (toc === undefined) return undefined;
  const frameMs = (OPUS_FRAME_TENTHS_MS[toc >> 3] ?? 200) / 10;
  const code = toc & 0x03;
  if (code === 0) return frameMs;
  if (code !== 3) return 2 * frameMs;
  const count = (packet[1] ?? 0) & 0x3f;
  return count === 0 ? undefined : count * frameMs;
}
