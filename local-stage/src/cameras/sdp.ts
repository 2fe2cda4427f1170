/** The edit the camera process makes to the answers its libwebrtc encoders receive. */
import { parse, write } from 'sdp-transform';

/**
 * The VP8 encoder's bitrate, in kbit/s, in the answer a libwebrtc sender receives: libwebrtc reads
 * `x-google-{start,min,max}-bitrate` from the negotiated codec's format parameters.
 */
export function withVideoBitrate(sdp: string, kbps: { start: number; max: number }): string {
  const description = parse(sdp);
  for (const section of description.media) {
    const vp8 = section.rtp.find((map) => map.codec === 'VP8' && map.rate === 90_000);
    if (!vp8) continue;
    const bitrate =
      `x-google-start-bitrate=${kbps.start};` +
      `x-google-min-bitrate=${Math.round(kbps.start / 2)};x-google-max-bitrate=${kbps.max}`;
    const fmtp = section.fmtp.find((line) => line.payload === vp8.payload);
    if (fmtp) fmtp.config = `${String(fmtp.config)};${bitrate}`;
    else section.fmtp.push({ payload: vp8.payload, config: bitrate });
    return write(description);
  }
  return sdp;
}
