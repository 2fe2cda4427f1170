/**
 * A libwebrtc (`@roamhq/wrtc`) WHIP publisher of noise: VP8 of random frames, which an encoder
 * can never compress below what its congestion controller allows, so its send rate shows what
 * the stage's feedback lets it reach (decision 0066). `feedback: 'none'` offers neither transport-wide
 * CC nor REMB (the publisher of the stage before them), `'remb'` REMB alone.
 */
import { randomFillSync } from 'node:crypto';
import { z } from 'zod';
import { publishOverWhip, type WhipSession } from '../cameras/whip-client';
import { RTCPeerConnection, RTCVideoSource } from '../cameras/wrtc';
import { PUBLISH, testParticipantToken, type TestTokenInput } from './participant-tokens';

const candidatePairSchema = z.object({
  type: z.literal('candidate-pair'),
  state: z.string().optional(),
  nominated: z.boolean().optional(),
  availableOutgoingBitrate: z.number().optional(),
});
const outboundVideoSchema = z.object({
  type: z.literal('outbound-rtp'),
  kind: z.literal('video'),
  bytesSent: z.number(),
  targetBitrate: z.number().optional(),
  qualityLimitationReason: z.string().optional(),
});

export interface PublisherRates {
  /** The congestion controller's estimate, bit/s (candidate pair's availableOutgoingBitrate). */
  availableOutgoingBitrate: number | undefined;
  /** The encoder's target, bit/s. */
  targetBitrate: number | undefined;
  /** Video bytes sent so far. */
  bytesSent: number;
  qualityLimitationReason: string | undefined;
}

export interface NoisePublisher {
  readonly session: WhipSession;
  rates(): Promise<PublisherRates>;
  close(): Promise<void>;
}

/** Removes from an offer what asks a receiver for congestion feedback, all of it or all but REMB. */
export function withLessFeedback(sdp: string, kept: 'none' | 'remb'): string {
  const asked = kept === 'remb' ? 'transport-cc' : 'transport-cc|goog-remb';
  return sdp
    .split('\r\n')
    .filter(
      (line) =>
        !new RegExp(`^a=rtcp-fb:\\S+ (${asked})$`).test(line) &&
        !/^a=extmap:\d+\S* \S*(transport-wide-cc|abs-send-time)/.test(line),
    )
    .join('\r\n');
}

/** The noise sent: 640x360 at 30 frame/s, offering all the feedback, unless a test says more. */
interface NoiseOptions {
  width?: number;
  height?: number;
  fps?: number;
  feedback?: 'all' | 'remb' | 'none';
}

/** The stage and aircraft a noise publisher goes on air on, and as whom. */
type NoiseStage = Pick<TestTokenInput, 'secret' | 'stageUrl' | 'stageId' | 'userId'>;

/**
 * A noise publisher on air as an encoder (`encoder-<stageId>` unless the test names its user):
 * the publish-only token and the stage's WHIP endpoint are made here, so that a test names only
 * the stage and what it sends. The stage reads a token's expiry at the join alone, so its ten
 * minutes only need to outlast the WHIP POST, however slow the machine.
 */
export async function publishNoiseOn(options: NoiseStage & NoiseOptions): Promise<NoisePublisher> {
  const { stageUrl, secret, stageId, userId, ...noise } = options;
  const token = await testParticipantToken({
    secret,
    stageUrl,
    stageId,
    userId: userId ?? `encoder-${stageId}`,
    capabilities: PUBLISH,
    ttlSeconds: 600,
  });
  return publishNoise({ endpoint: new URL(`/stage/whip/${stageId}`, stageUrl), token, ...noise });
}

async function publishNoise(
  options: { endpoint: URL; token: string } & NoiseOptions,
): Promise<NoisePublisher> {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const source = new RTCVideoSource();
  const peer = new RTCPeerConnection({ iceServers: [] });
  peer.addTransceiver(source.createTrack(), { direction: 'sendonly' });
  const data = new Uint8Array((width * height * 3) / 2);
  const timer = setInterval(
    () => {
      randomFillSync(data, 0, width * height);
      data.fill(128, width * height);
      source.onFrame({ width, height, data });
    },
    1000 / (options.fps ?? 30),
  );
  let session: WhipSession;
  try {
    session = await publishOverWhip({
      endpoint: options.endpoint,
      token: options.token,
      peer,
      editOffer: (sdp) =>
        options.feedback === 'none' || options.feedback === 'remb'
          ? withLessFeedback(sdp, options.feedback)
          : sdp,
    });
  } catch (error) {
    clearInterval(timer);
    peer.close();
    throw error;
  }
  return {
    session,
    rates: async () => {
      const stats = [...(await peer.getStats()).values()];
      const pair = stats
        .flatMap((entry) => candidatePairSchema.safeParse(entry).data ?? [])
        .find((candidate) => candidate.availableOutgoingBitrate !== undefined);
      const outbound = stats.flatMap((entry) => outboundVideoSchema.safeParse(entry).data ?? [])[0];
      return {
        availableOutgoingBitrate: pair?.availableOutgoingBitrate,
        targetBitrate: outbound?.targetBitrate,
        bytesSent: outbound?.bytesSent ?? 0,
        qualityLimitationReason: outbound?.qualityLimitationReason,
      };
    },
    close: async () => {
      clearInterval(timer);
      await session.end();
      peer.close();
    },
  };
}
