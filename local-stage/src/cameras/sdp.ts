/** The edit the camera process makes to the answers its libwebrtc encoders receive. */

/**
 * The VP8 encoder's bitrate, in kbit/s, in the answer a libwebrtc sender receives: libwebrtc reads
 * `x-google-{start,min,max}-bitrate` from the negotiated codec's format parameters.
 */
export function withVideoBitrate(sdp: string, kbps: { start: number; max: number }): string {
  return sdp.replace(
    /^a=rtpmap:(\d+) VP8\/90000(?=\r?$)/m,
    (line, payloadType: string) =>
      `${line}\r\na=fmtp:${payloadType} x-google-start-bitrate=${kbps.start};` +
      `x-google-min-bitrate=${Math.round(kbps.start / 2)};x-google-max-bitrate=${kbps.max}`,
  );
}
