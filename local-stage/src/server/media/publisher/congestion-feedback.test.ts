import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'sdp-transform';
import {
  RTCPeerConnection,
  RtpHeader,
  RtpPacket,
  useTransportWideCC,
  type RtcpPacket,
} from 'werift';
import {
  CongestionFeedback,
  REMB_INTERVAL_MS,
  TRANSPORT_CC_INTERVAL_MS,
  type FeedbackTransport,
} from './congestion-feedback';
import { readWhipOffer } from '../sdp/offer-sdp';
import { receiveCodec } from './publisher';
import { decodeRemb } from './remb';
import { NOT_RECEIVED, TRANSPORT_CC_URI, decodeTransportFeedback } from './transport-cc';

const ABS_SEND_TIME = 'http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time';

/** A one-section video offer with `feedback` lines for VP8 (96) and the extensions `uris`. */
function offer(feedback: string[], uris: string[]): string {
  return [
    'v=0',
    'o=- 1 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    'm=video 9 UDP/TLS/RTP/SAVPF 96',
    'c=IN IP4 0.0.0.0',
    'a=mid:0',
    'a=sendonly',
    'a=rtpmap:96 VP8/90000',
    ...feedback.map((type) => `a=rtcp-fb:96 ${type}`),
    ...uris.map((uri, i) => `a=extmap:${i + 3} ${uri}`),
    '',
  ].join('\r\n');
}

/** werift's answer to such an offer: the extensions it was configured with, NACK and PLI. */
const weriftAnswer = [
  'v=0',
  'o=- 1 0 IN IP4 0.0.0.0',
  's=-',
  't=0 0',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'c=IN IP4 0.0.0.0',
  'a=rtcp-fb:96 nack',
  'a=rtcp-fb:96 nack pli',
  `a=extmap:4 ${TRANSPORT_CC_URI}`,
  'a=mid:0',
  'a=recvonly',
  'a=rtpmap:96 VP8/90000',
  '',
].join('\r\n');

function answered(feedback: CongestionFeedback) {
  const [video] = parse(feedback.answer(weriftAnswer)).media;
  return {
    feedback: (video?.rtcpFb ?? []).map((line) =>
      [line.payload, line.type, line.subtype].filter(Boolean).join(' '),
    ),
    extensions: (video?.ext ?? []).map((ext) => ext.uri),
  };
}

describe('the feedback a publisher is answered with', () => {
  it('gives transport-cc and goog-remb when the offer has them, with the extension', () => {
    const feedback = new CongestionFeedback({
      offerSdp: offer(['goog-remb', 'transport-cc', 'nack'], [TRANSPORT_CC_URI]),
    });
    expect(feedback.transportCc).toBe(true);
    expect(answered(feedback)).toEqual({
      feedback: ['96 nack', '96 nack pli', '96 transport-cc', '96 goog-remb'],
      extensions: [TRANSPORT_CC_URI],
    });
    expect(feedback.sendsRemb).toBe(false);
  });

  it('gives REMB alone, without the extension, to a publisher that offers only goog-remb', () => {
    const feedback = new CongestionFeedback({
      offerSdp: offer(['goog-remb'], [TRANSPORT_CC_URI, ABS_SEND_TIME]),
    });
    expect(feedback.transportCc).toBe(false);
    expect(answered(feedback)).toEqual({
      feedback: ['96 nack', '96 nack pli', '96 goog-remb'],
      extensions: [],
    });
    expect(feedback.sendsRemb).toBe(true);
  });

  it('gives nothing more to a publisher that offers neither', () => {
    const feedback = new CongestionFeedback({ offerSdp: offer(['nack'], []) });
    expect(answered(feedback)).toEqual({ feedback: ['96 nack', '96 nack pli'], extensions: [] });
  });

  it('sends REMB beside transport-wide CC when the aircraft has a cap', () => {
    const feedback = new CongestionFeedback({
      offerSdp: offer(['goog-remb', 'transport-cc'], [TRANSPORT_CC_URI]),
      maxBitrate: 800_000,
    });
    expect(feedback.sendsRemb).toBe(true);
  });

  it("gives the camera process's own camera no transport-wide CC, REMB only as a cap", () => {
    const cameraOffer = offer(['goog-remb', 'transport-cc', 'nack'], [TRANSPORT_CC_URI]);
    const camera = new CongestionFeedback({ offerSdp: cameraOffer, ownCamera: true });
    expect(camera.transportCc).toBe(false);
    expect(answered(camera)).toEqual({
      feedback: ['96 nack', '96 nack pli', '96 goog-remb'],
      extensions: [],
    });
    // No cap: nothing to tell it (its rate is its own configuration).
    expect(camera.sendsRemb).toBe(false);
    const capped = new CongestionFeedback({
      offerSdp: cameraOffer,
      ownCamera: true,
      maxBitrate: 800_000,
    });
    expect(capped.sendsRemb).toBe(true);
  });
});

describe('the feedback sent', () => {
  let now = 0;
  const sent: Buffer[] = [];
  let listener: ((packet: RtpPacket) => void) | undefined;
  const transport: FeedbackTransport = {
    state: 'connected',
    onRtp: {
      subscribe: (added) => {
        listener = added;
        return { unSubscribe: () => (listener = undefined) };
      },
    },
    sendRtcp: (packets: RtcpPacket[]) => {
      sent.push(...packets.map((packet) => packet.serialize()));
      return Promise.resolve();
    },
  };

  beforeEach(() => {
    vi.useFakeTimers();
    now = 1000;
    sent.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  /** A packet with transport-wide sequence number `transportSequence` (extension id 4). */
  function arrive(sequenceNumber: number, transportSequence: number, atMs: number): void {
    now = atMs;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(transportSequence);
    const header = new RtpHeader({
      ssrc: 1234,
      sequenceNumber,
      payloadType: 96,
      extension: true,
      extensions: [{ id: 4, payload }],
    });
    listener?.(new RtpPacket(header, Buffer.alloc(1000)));
  }

  it('reports every 50 ms what arrived, a lost packet as not received', () => {
    const feedback = new CongestionFeedback({
      offerSdp: offer(['transport-cc'], [TRANSPORT_CC_URI]),
      now: () => now,
    });
    feedback.answer(weriftAnswer);
    feedback.attach(transport);
    arrive(1, 100, 1000);
    arrive(2, 101, 1005);
    arrive(4, 103, 1010);
    vi.advanceTimersByTime(TRANSPORT_CC_INTERVAL_MS);
    expect(sent).toHaveLength(1);
    const report = decodeTransportFeedback(sent[0] ?? Buffer.alloc(0));
    expect(report.baseSequenceNumber).toBe(100);
    expect(report.packets.map((packet) => packet.status === NOT_RECEIVED)).toEqual([
      false,
      false,
      true,
      false,
    ]);
    expect(report.packets.map((packet) => packet.arrival)).toEqual([4000, 4020, undefined, 4040]);
    vi.advanceTimersByTime(TRANSPORT_CC_INTERVAL_MS);
    expect(sent).toHaveLength(1); // nothing new arrived
    feedback.stop();
    expect(listener).toBeUndefined();
  });

  it("sends the aircraft's cap as REMB at the first packet and every second", () => {
    const feedback = new CongestionFeedback({
      offerSdp: offer(['transport-cc', 'goog-remb'], [TRANSPORT_CC_URI]),
      maxBitrate: 1_500_000,
      now: () => now,
    });
    feedback.answer(weriftAnswer);
    feedback.attach(transport);
    arrive(1, 1, 1000);
    const rembs = () => sent.filter((packet) => packet[1] === 206).map((p) => decodeRemb(p));
    expect(rembs()).toEqual([
      { senderSsrc: expect.any(Number), bitrate: 1_500_000, ssrcs: [1234] },
    ]);
    vi.advanceTimersByTime(REMB_INTERVAL_MS);
    expect(rembs()).toHaveLength(2);
    feedback.stop();
  });

  it('guesses nothing for a REMB-only publisher before a second has been measured', () => {
    const feedback = new CongestionFeedback({ offerSdp: offer(['goog-remb'], []), now: () => now });
    feedback.answer(weriftAnswer);
    feedback.attach(transport);
    arrive(1, 1, 1000);
    vi.advanceTimersByTime(REMB_INTERVAL_MS - 1);
    expect(sent).toEqual([]);
    arrive(2, 2, 1999);
    vi.advanceTimersByTime(1);
    expect(sent.map((packet) => decodeRemb(packet).bitrate)).toHaveLength(1);
    feedback.stop();
  });

  it('sends a REMB-only publisher an estimate above what arrives, never above its cap', () => {
    const feedback = new CongestionFeedback({
      offerSdp: offer(['goog-remb'], []),
      maxBitrate: 2_000_000,
      now: () => now,
    });
    feedback.answer(weriftAnswer);
    feedback.attach(transport);
    // 100 packets of 1012 bytes a second: about 810 kbit/s.
    for (let i = 0; i < 300; i++) {
      arrive(i, i, 1000 + i * 10);
      vi.advanceTimersByTime(10);
    }
    const rembs = sent.map((packet) => decodeRemb(packet).bitrate);
    expect(rembs.at(-1)).toBeGreaterThan(1_000_000);
    expect(Math.max(...rembs)).toBeLessThanOrEqual(2_000_000);
    feedback.stop();
  });

  it("tells the camera process's camera nothing of a busy stage's late arrivals, only its cap", () => {
    // Packets stamped in a stage's loop that forwards each to 100 viewers: the camera's GCC
    // reads the spacing as its link's. The camera's must not hear of it (decision 0079).
    const stamped = (cameraOptions: { ownCamera?: boolean }) => {
      sent.length = 0;
      const feedback = new CongestionFeedback({
        offerSdp: offer(['transport-cc', 'goog-remb'], [TRANSPORT_CC_URI]),
        maxBitrate: 900_000,
        now: () => now,
        ...cameraOptions,
      });
      feedback.answer(weriftAnswer);
      feedback.attach(transport);
      for (let i = 0; i < 125; i++) {
        arrive(i, i, 1000 + i * 16);
        vi.advanceTimersByTime(16);
      }
      feedback.stop();
      return {
        transportCc: sent.filter((packet) => packet[1] === 205).length,
        rembs: sent.filter((packet) => packet[1] === 206).map((p) => decodeRemb(p).bitrate),
      };
    };
    // An encoder from a real network is told the queue, and its GCC backs off.
    expect(stamped({}).transportCc).toBeGreaterThan(30);
    const camera = stamped({ ownCamera: true });
    expect(camera.transportCc).toBe(0);
    // Its aircraft's cap, not an estimate of what arrived (about 500 kbit/s here).
    expect(camera.rembs).toEqual([900_000, 900_000, 900_000]);
  });
});

describe("werift's own transport-wide CC", () => {
  /** A publisher's offer as werift reads it: ICE, DTLS and an SSRC added to `offer`'s. */
  const publisherOffer = offer(
    ['transport-cc', 'goog-remb', 'nack', 'nack pli'],
    [TRANSPORT_CC_URI],
  )
    .replace(
      'c=IN IP4 0.0.0.0\r\n',
      'c=IN IP4 0.0.0.0\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n',
    )
    .replace(
      'a=sendonly\r\n',
      `a=sendonly\r\na=rtcp-mux\r\na=setup:actpass\r\na=fingerprint:sha-256 ${Array(32).fill('AB').join(':')}\r\na=ssrc:1234 cname:publisher\r\n`,
    );

  /** werift's receiver after taking `sdp` with the stage's receive codec and extensions. */
  async function weriftReceiver(sdp: string) {
    const peer = new RTCPeerConnection({
      codecs: {
        video: [receiveCodec({ mimeType: 'video/VP8', payloadType: 96, clockRate: 90_000 })],
        audio: [],
      },
      headerExtensions: { video: [useTransportWideCC()], audio: [] },
    });
    await peer.setRemoteDescription({ type: 'offer', sdp });
    const receiver = peer.getTransceivers()[0]?.receiver;
    const answer = (await peer.createAnswer()).sdp;
    await peer.close();
    return { receiver, answer };
  }

  it('stays off for the offer werift is given, which the stage trims to NACK, PLI and FIR', async () => {
    const { receiver, answer } = await weriftReceiver(readWhipOffer(publisherOffer).sdp);
    // werift starts its generator when the negotiated codec (the offer's) has transport-cc.
    expect(receiver?.twccEnabled).toBeUndefined();
    expect(receiver?.receiverTWCC).toBeUndefined();
    expect(answer).toContain(TRANSPORT_CC_URI);
    expect(answer).not.toContain('transport-cc');
  });

  it('would start on the offer as the publisher wrote it (why the trim matters)', async () => {
    const { receiver } = await weriftReceiver(publisherOffer);
    expect(receiver?.twccEnabled).toBeDefined();
  });
});
