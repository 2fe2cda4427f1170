/**
 * A subscription's peer alone, in Node: libwebrtc (`@roamhq/wrtc`) on both ends, the stage's end
 * a plain peer that offers send-only audio and video, candidates passed by hand.
 */
import wrtc from '@roamhq/wrtc';
import { afterEach, describe, expect, it } from 'vitest';
import type { IceCandidateMessage } from '../signalling';
import type { RemoteStageStream, StageParticipantInfo } from './participant';
import { waitUntil } from '../testing/wait-until';
import { SubscriptionPeer } from './subscription-peer';

const camera: StageParticipantInfo = {
  id: 'camera-N743AS',
  userId: 'N743AS',
  attributes: {},
  capabilities: new Set(['publish']),
  isLocal: false,
  userInfo: {},
  videoStopped: false,
  audioMuted: false,
  isPublishing: true,
};

const opened: RTCPeerConnection[] = [];

afterEach(() => {
  for (const peer of opened.splice(0)) peer.close();
});

function peerConnection(): RTCPeerConnection {
  // wrtc's RTCPeerConnection is the browser's API, implemented by libwebrtc.
  const peer = new wrtc.RTCPeerConnection({ iceServers: [] }) as RTCPeerConnection;
  opened.push(peer);
  return peer;
}

/** The stage's end: an offer of send-only audio and video. */
async function stageOffer(): Promise<{ stage: RTCPeerConnection; sdp: string }> {
  const stage = peerConnection();
  stage.addTransceiver('audio', { direction: 'sendonly' });
  stage.addTransceiver('video', { direction: 'sendonly' });
  const offer = await stage.createOffer();
  await stage.setLocalDescription(offer);
  return { stage, sdp: offer.sdp ?? '' };
}

/** A SubscriptionPeer with every report it makes recorded. */
function recordedPeer(connection: RTCPeerConnection) {
  const reports: string[] = [];
  const tracks: RemoteStageStream[][] = [];
  const candidates: (IceCandidateMessage | null)[] = [];
  const peer = new SubscriptionPeer(connection, camera, {
    candidate: (candidate) => candidates.push(candidate),
    tracks: (streams) => {
      reports.push('tracks');
      tracks.push(streams);
    },
    connected: () => reports.push('connected'),
    lost: () => reports.push('lost'),
  });
  return { peer, reports, tracks, candidates };
}

describe('a subscription peer', () => {
  it("answers the stage's offer, reports the offer's tracks together once announced, trickles, and reports connected", async () => {
    const { stage, sdp } = await stageOffer();
    const { peer, reports, tracks, candidates } = recordedPeer(peerConnection());
    const answer = await peer.answer(sdp);
    expect(answer).toContain('a=recvonly');
    // The tracks wait until the session has sent the answer and announces them.
    expect(reports).toEqual([]);
    peer.announce();
    expect(reports).toEqual(['tracks']);
    expect(tracks[0]?.map((stream) => stream.streamType)).toEqual(['audio', 'video']);
    expect(tracks[0]?.every((stream) => stream.participantInfo === camera)).toBe(true);
    expect(peer.streams).toEqual(tracks[0]);

    await stage.setRemoteDescription({ type: 'answer', sdp: answer ?? '' });
    stage.onicecandidate = ({ candidate }) => {
      if (candidate) void peer.addCandidate(candidate);
    };
    await waitUntil(() => candidates.includes(null), 'the end of our candidates');
    for (const candidate of candidates) {
      if (candidate) await stage.addIceCandidate(candidate);
    }
    await waitUntil(() => reports.includes('connected'), 'connected');
    expect(reports).toEqual(['tracks', 'connected']);
  });

  it('close() releases its listeners and the connection once, and it reports nothing after', async () => {
    const { sdp } = await stageOffer();
    const connection = peerConnection();
    const { peer, reports } = recordedPeer(connection);
    const answering = peer.answer(sdp);
    peer.close();
    peer.close();
    expect(await answering).toBeUndefined();
    expect(reports).toEqual([]);
    expect(connection.connectionState).toBe('closed');
    expect(connection.onicecandidate).toBeNull();
    expect(connection.ontrack).toBeNull();
    expect(connection.onconnectionstatechange).toBeNull();
  });

  it('drops a candidate the connection refuses, as a browser would', async () => {
    const { sdp } = await stageOffer();
    const { peer } = recordedPeer(peerConnection());
    await peer.answer(sdp);
    await expect(
      peer.addCandidate({ candidate: 'not a candidate', sdpMid: '0', sdpMLineIndex: 0 }),
    ).resolves.toBeUndefined();
  });
});
