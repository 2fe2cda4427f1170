import { describe, expect, it } from 'vitest';
import { asDtlsServer, withSessionIceLite, withVideoBitrate } from './sdp';

const werift = [
  'v=0',
  'o=- 1 0 IN IP4 0.0.0.0',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'a=ice-lite',
  'a=setup:actpass',
  'a=mid:0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'a=ice-lite',
  'a=setup:actpass',
  'a=mid:1',
  '',
].join('\r\n');

describe('stage SDP edits', () => {
  it('moves a=ice-lite from the media sections to the session, once', () => {
    const lines = withSessionIceLite(werift).split('\r\n');
    expect(lines.filter((line) => line === 'a=ice-lite')).toHaveLength(1);
    expect(lines.indexOf('a=ice-lite')).toBe(lines.indexOf('t=0 0') + 1);
    expect(lines.indexOf('a=ice-lite')).toBeLessThan(lines.findIndex((l) => l.startsWith('m=')));
  });

  it('leaves a description without ICE lite as it is', () => {
    const full = werift.replaceAll('a=ice-lite\r\n', '');
    expect(withSessionIceLite(full)).toBe(full);
  });

  it('makes the stage the DTLS server of every media section', () => {
    const offer = asDtlsServer(werift);
    expect(offer).not.toMatch(/actpass/);
    expect(offer.match(/^a=setup:passive$/gm)).toHaveLength(2);
  });

  it("sets the VP8 encoder's bitrate on the VP8 codec only", () => {
    const answer = werift
      .replace('a=mid:0\r\n', 'a=mid:0\r\na=rtpmap:96 VP8/90000\r\n')
      .replace('a=mid:1\r\n', 'a=mid:1\r\na=rtpmap:111 opus/48000/2\r\n');
    const lines = withVideoBitrate(answer, { start: 700, max: 900 }).split('\r\n');
    expect(lines[lines.indexOf('a=rtpmap:96 VP8/90000') + 1]).toBe(
      'a=fmtp:96 x-google-start-bitrate=700;x-google-min-bitrate=350;x-google-max-bitrate=900',
    );
    expect(lines.filter((line) => line.startsWith('a=fmtp:'))).toHaveLength(1);
  });
});
