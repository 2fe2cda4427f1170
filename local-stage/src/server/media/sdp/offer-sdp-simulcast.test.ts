/**
 * Simulcast in a WHIP offer (RFC 8853 with RFC 8851's RTP stream ids): the offer Chromium really
 * makes with three `sendEncodings` (../../testing/fixtures/whip-chromium-simulcast/), and the
 * variations a publisher may send.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OfferError, readWhipOffer } from './offer-sdp';

const chromiumSimulcastOffer = readFileSync(
  new URL('../../../testing/fixtures/whip-chromium-simulcast/offer.sdp', import.meta.url),
  'utf8',
);

function refusal(sdp: string): unknown {
  try {
    readWhipOffer(sdp);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('reading a simulcast WHIP offer', () => {
  it("takes Chromium's three encodings, in its order, with VP8 and no RTX", () => {
    const offer = readWhipOffer(chromiumSimulcastOffer);
    expect(offer.rids).toEqual(['q', 'h', 'f']);
    expect(offer.video).toMatchObject({ mimeType: 'video/VP8', payloadType: 96 });
    expect(offer.audio).toMatchObject({ mimeType: 'audio/opus', payloadType: 111 });
    const video = offer.sdp.slice(offer.sdp.indexOf('m=video'));
    expect(video).toContain('m=video 9 UDP/TLS/RTP/SAVPF 96\r\n');
    expect(video).toContain('a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\n');
    expect(video).toContain('a=simulcast:send q;h;f\r\n');
    // werift routes the encodings by these extensions.
    expect(video).toContain('a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\n');
    expect(video).toContain('a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id');
    expect(video).toContain('a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r\n');
    // werift has no RTX with simulcast (its issue #96): none is offered to it.
    expect(video).not.toMatch(/rtx|apt=/);
    // The audio section has no simulcast.
    expect(offer.sdp.slice(0, offer.sdp.indexOf('m=video'))).not.toMatch(/a=rid|a=simulcast/);
  });

  it('takes H.264 simulcast when the publisher prefers it', () => {
    const h264First = chromiumSimulcastOffer.replace(
      /^m=video 9 UDP\/TLS\/RTP\/SAVPF 96 97 102 /m,
      'm=video 9 UDP/TLS/RTP/SAVPF 102 96 97 ',
    );
    const offer = readWhipOffer(h264First);
    expect(offer.video).toMatchObject({ mimeType: 'video/H264', payloadType: 102 });
    expect(offer.rids).toEqual(['q', 'h', 'f']);
  });

  it('drops the restrictions of a rid line and keeps a paused stream (it may start later)', () => {
    const offer = readWhipOffer(
      chromiumSimulcastOffer
        .replace('a=rid:q send\r\n', 'a=rid:q send pt=96;max-width=320\r\n')
        .replace('a=simulcast:send q;h;f', 'a=simulcast:send q;~h;f,f2'),
    );
    expect(offer.rids).toEqual(['q', 'h', 'f']);
    expect(offer.sdp).toContain('a=rid:q send\r\n');
    expect(offer.sdp).not.toContain('max-width');
  });

  it('reads rid lines without a=simulcast as one encoding, as today', () => {
    const offer = readWhipOffer(chromiumSimulcastOffer.replace('a=simulcast:send q;h;f\r\n', ''));
    expect(offer.rids).toEqual([]);
    expect(offer.sdp).not.toMatch(/a=rid|a=simulcast/);
  });

  it.each([
    [
      'a simulcast stream with no rid line',
      chromiumSimulcastOffer.replace('a=simulcast:send q;h;f', 'a=simulcast:send q;h;f;x'),
      'names rid x with no "a=rid:x send"',
    ],
    [
      'a malformed stream id',
      chromiumSimulcastOffer
        .replace('a=rid:f send', `a=rid:${'f'.repeat(40)} send`)
        .replace('a=simulcast:send q;h;f', `a=simulcast:send q;h;${'f'.repeat(40)}`),
      'malformed RTP stream id',
    ],
    [
      'five encodings',
      chromiumSimulcastOffer
        .replace('a=rid:f send', 'a=rid:f send\r\na=rid:a send\r\na=rid:b send')
        .replace('a=simulcast:send q;h;f', 'a=simulcast:send q;h;f;a;b'),
      'has 5 simulcast encodings; send 4 at most',
    ],
    [
      'a stream id twice',
      chromiumSimulcastOffer.replace('a=simulcast:send q;h;f', 'a=simulcast:send q;h;q'),
      'names an RTP stream id twice',
    ],
  ])('refuses %s with a clear 400', (_name, sdp, message) => {
    const error = refusal(sdp);
    expect(error).toBeInstanceOf(OfferError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toContain(message);
  });
});
