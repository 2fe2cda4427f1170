import { describe, expect, it } from 'vitest';
import {
  OfferError,
  readSdpFragment,
  readWhepOffer,
  readWhipOffer,
  withoutParameterSets,
  withoutReceiveOnlyStreams,
} from './offer-sdp';

/** Chromium's offer, cut down: VP8 and H.264 variants, RTX, several feedback types. */
const chromiumOffer = (videoOrder: string) =>
  [
    'v=0',
    'o=- 1 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    'a=group:BUNDLE 0 1',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111 0',
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:abcd',
    'a=ice-pwd:0123456789012345678901',
    'a=mid:0',
    'a=sendonly',
    'a=rtpmap:111 opus/48000/2',
    'a=rtcp-fb:111 transport-cc',
    'a=fmtp:111 minptime=10;useinbandfec=1',
    'a=rtpmap:0 PCMU/8000',
    `m=video 9 UDP/TLS/RTP/SAVPF ${videoOrder}`,
    'c=IN IP4 0.0.0.0',
    'a=mid:1',
    'a=sendonly',
    'a=rtpmap:96 VP8/90000',
    'a=rtcp-fb:96 goog-remb',
    'a=rtcp-fb:96 transport-cc',
    'a=rtcp-fb:96 nack',
    'a=rtcp-fb:96 nack pli',
    'a=rtpmap:97 rtx/90000',
    'a=fmtp:97 apt=96',
    'a=rtpmap:102 H264/90000',
    'a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f',
    'a=rtpmap:104 H264/90000',
    'a=rtcp-fb:104 nack',
    'a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
    'a=rtpmap:45 AV1/90000',
    '',
  ].join('\r\n');

describe('reading a WHIP offer', () => {
  it("takes the publisher's first acceptable video codec and Opus, and trims the rest", () => {
    const vp8First = readWhipOffer(chromiumOffer('96 97 102 104 45'));
    expect(vp8First.video).toMatchObject({ mimeType: 'video/VP8', payloadType: 96 });
    expect(vp8First.audio).toMatchObject({ mimeType: 'audio/opus', payloadType: 111, channels: 2 });
    expect(vp8First.sdp).toContain('m=video 9 UDP/TLS/RTP/SAVPF 96\r\n');
    expect(vp8First.sdp).toContain('m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n');
    // Only the feedback the stage gives: no REMB, no transport-wide congestion control.
    expect(vp8First.sdp).toContain('a=rtcp-fb:96 nack pli');
    expect(vp8First.sdp).not.toMatch(/goog-remb|transport-cc|rtx|PCMU|H264/);
    expect(vp8First.iceUfrag).toBe('abcd');

    // H.264 first: packetization-mode 0 is passed over for the mode-1 variant.
    const h264First = readWhipOffer(chromiumOffer('102 104 96 97 45'));
    expect(h264First.video).toMatchObject({
      mimeType: 'video/H264',
      payloadType: 104,
      parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
    });
    expect(h264First.sdp).toContain('m=video 9 UDP/TLS/RTP/SAVPF 104\r\n');
  });

  it('gives a bundle-only section with port 0 a port, as GStreamer sends it', () => {
    const offer = chromiumOffer('96')
      .replace('m=video 9 ', 'm=video 0 ')
      .replace('a=mid:1', 'a=mid:1\r\na=bundle-only');
    const read = readWhipOffer(offer);
    expect(read.sdp).toContain('m=video 9 UDP/TLS/RTP/SAVPF 96');
    expect(read.sdp).not.toContain('a=bundle-only');
  });

  it("answers H.264 without the sender parameter sets (werift copies the offer's)", () => {
    const answer = [
      'a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0LADNoF,aM48gA==;profile-level-id=42c00c',
      'a=fmtp:97 sprop-parameter-sets=Z0LA,aM4=',
      'a=fmtp:111 minptime=10;useinbandfec=1',
      '',
    ].join('\r\n');
    expect(withoutParameterSets(answer)).toBe(
      [
        'a=fmtp:96 packetization-mode=1;profile-level-id=42c00c',
        'a=fmtp:111 minptime=10;useinbandfec=1',
        '',
      ].join('\r\n'),
    );
  });

  it('announces no stream in the sections it only receives (a libwebrtc publisher would build a receive stream for it)', () => {
    const section = (kind: string, direction: string) => [
      `m=${kind} 9 UDP/TLS/RTP/SAVPF 96`,
      `a=${direction}`,
      'a=msid:stream track',
      'a=ssrc:811368877 cname:c9ead80e',
      'a=ssrc-group:FID 811368877 811368878',
      'a=rtpmap:96 VP8/90000',
    ];
    const answer = ['v=0', 'a=msid-semantic:WMS *', ...section('video', 'recvonly')];
    const sendingToo = [...answer, ...section('audio', 'sendrecv'), ''].join('\r\n');
    expect(withoutReceiveOnlyStreams(sendingToo)).toBe(
      [
        'v=0',
        'a=msid-semantic:WMS *',
        'm=video 9 UDP/TLS/RTP/SAVPF 96',
        'a=recvonly',
        'a=rtpmap:96 VP8/90000',
        ...section('audio', 'sendrecv'),
        '',
      ].join('\r\n'),
    );
  });

  it.each([
    ['not SDP at all', 'hello', 'must start with v=0'],
    ['a broken line', 'v=0\r\nthis is not sdp\r\n', 'not "x=value"'],
    ['no media', 'v=0\r\ns=-\r\n', 'no audio or video'],
    [
      'only VP9 and AV1 video',
      chromiumOffer('45').replace(/a=rtpmap:45 AV1/, 'a=rtpmap:45 VP9'),
      'send H.264 (packetization-mode=1) or VP8',
    ],
    ['H.264 in mode 0 only', chromiumOffer('102'), 'send H.264 (packetization-mode=1) or VP8'],
    [
      'no Opus',
      chromiumOffer('96').replace(
        'm=audio 9 UDP/TLS/RTP/SAVPF 111 0',
        'm=audio 9 UDP/TLS/RTP/SAVPF 0',
      ),
      'send Opus',
    ],
    [
      'a data channel',
      `${chromiumOffer('96')}m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n`,
      'audio and video only',
    ],
    [
      'two video sections',
      `${chromiumOffer('96')}m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n`,
      'more than one',
    ],
    [
      'a receive-only section',
      chromiumOffer('96').replace('a=mid:1\r\na=sendonly', 'a=mid:1\r\na=recvonly'),
      'does not send',
    ],
  ])('refuses %s with a clear 400', (_name, sdp, message) => {
    let error: unknown;
    try {
      readWhipOffer(sdp);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OfferError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toContain(message);
  });

  it('reads the ICE username fragment of a trickle PATCH, and refuses a body that is not one', () => {
    expect(
      readSdpFragment('a=ice-ufrag:abcd\r\na=ice-pwd:x\r\nm=audio 9 RTP/AVP 0\r\na=mid:0\r\n'),
    ).toEqual({
      iceUfrag: 'abcd',
    });
    expect(readSdpFragment('a=end-of-candidates\r\n')).toEqual({ iceUfrag: undefined });
    expect(() => readSdpFragment('{"candidate": 1}')).toThrow(OfferError);
  });
});

describe("reading a WHEP player's offer", () => {
  it('keeps its REMB, from which its layer is chosen, and no transport-wide CC', () => {
    const player = chromiumOffer('96 97 102 104 45').replaceAll('a=sendonly', 'a=recvonly');
    const { sdp } = readWhepOffer(player, {
      video: { mimeType: 'video/VP8', payloadType: 96, clockRate: 90_000 },
      audio: undefined,
    });
    const video = sdp.slice(sdp.indexOf('m=video'));
    expect(video).toContain('a=rtcp-fb:96 goog-remb');
    expect(video).not.toContain('transport-cc');
  });
});
