/**
 * A receive-only WHEP player on the stage's own port (docs/decisions/0055-whep-playback.md), as
 * the recorder (recorder/whep-recording.ts) and the thumbnail process (thumbnails/aircraft-feed.ts)
 * use it: a werift peer that hands over the RTP packets as they come (nothing is decoded), its
 * offer POSTed with a participant token, its session ended with a DELETE carrying the same.
 */
import { RTCPeerConnection, RTCRtpCodecParameters, type RTCRtpTransceiver } from 'werift';

const FEEDBACK = [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }];

export interface WhepPeerOptions {
  /** Whether the player takes audio (Opus) too. */
  audio: boolean;
  /** The H.264 format parameters offered (packetization mode 1; the stage matches the profile). */
  h264Parameters: string;
}

/** A receive-only peer, not yet offering: its video transceiver, and its audio one if asked. */
export function whepPeer(options: WhepPeerOptions): {
  peer: RTCPeerConnection;
  video: RTCRtpTransceiver;
  audio: RTCRtpTransceiver | undefined;
} {
  const peer = new RTCPeerConnection({
    codecs: {
      video: [
        new RTCRtpCodecParameters({
          mimeType: 'video/VP8',
          clockRate: 90_000,
          rtcpFeedback: FEEDBACK,
        }),
        new RTCRtpCodecParameters({
          mimeType: 'video/H264',
          clockRate: 90_000,
          rtcpFeedback: FEEDBACK,
          parameters: options.h264Parameters,
        }),
      ],
      audio: options.audio
        ? [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 })]
        : [],
    },
    iceServers: [],
    iceUseIpv6: false,
  });
  const video = peer.addTransceiver('video', { direction: 'recvonly' });
  const audio = options.audio ? peer.addTransceiver('audio', { direction: 'recvonly' }) : undefined;
  return { peer, video, audio };
}

/** The stage's answer to an offer: its status, its body, and the session's URL when it made one. */
export interface WhepAnswer {
  status: number;
  body: string;
  location: URL | undefined;
}

/** POSTs `offer` to the aircraft's WHEP endpoint with `token`. */
export async function postWhepOffer(options: {
  stageUrl: string;
  stageId: string;
  token: string;
  offer: string;
  timeoutMs: number;
}): Promise<WhepAnswer> {
  const endpoint = new URL(`/stage/whep/${encodeURIComponent(options.stageId)}`, options.stageUrl);
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/sdp' },
    body: options.offer,
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const body = await response.text();
  const location = response.headers.get('location');
  return {
    status: response.status,
    body,
    location: location ? new URL(location, endpoint) : undefined,
  };
}

/** Ends a WHEP session as a player leaving does (best effort: the stage ends it anyway once quiet). */
export async function deleteWhepSession(
  session: { url: URL; token: string },
  timeoutMs: number,
): Promise<void> {
  await fetch(session.url, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${session.token}` },
    signal: AbortSignal.timeout(timeoutMs),
  }).catch(() => undefined);
}

/** Asks the publisher for a key frame (a PLI to the track's SSRC), when the track has come. */
export function requestKeyFrame(video: RTCRtpTransceiver | undefined): void {
  const ssrc = video?.receiver.tracks[0]?.ssrc;
  if (ssrc !== undefined) void video?.receiver.sendRtcpPLI(ssrc).catch(() => undefined);
}
