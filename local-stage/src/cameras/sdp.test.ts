import { describe, expect, it } from 'vitest';
import { withVideoBitrate } from './sdp';

const answer = [
  'v=0',
  'o=- 1 0 IN IP4 0.0.0.0',
  's=-',
  't=0 0',
  'a=ice-lite',
  'a=group:BUNDLE 0 1',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'a=mid:0',
  'a=rtpmap:96 VP8/90000',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'a=mid:1',
  'a=rtpmap:111 opus/48000/2',
  '',
].join('\r\n');

describe("the camera encoder's answer edits", () => {
  it("sets the VP8 encoder's bitrate on the VP8 codec only", () => {
    const lines = withVideoBitrate(answer, { start: 700, max: 900 }).split('\r\n');
    expect(lines[lines.indexOf('a=rtpmap:96 VP8/90000') + 1]).toBe(
      'a=fmtp:96 x-google-start-bitrate=700;x-google-min-bitrate=350;x-google-max-bitrate=900',
    );
    expect(lines.filter((line) => line.startsWith('a=fmtp:'))).toHaveLength(1);
  });
});
