import { describe, expect, it } from 'vitest';
import { asDtlsServer, withSessionIceLite } from './werift-sdp';

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
});
