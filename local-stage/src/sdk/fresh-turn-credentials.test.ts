/**
 * A TURN credential shorter than the session (decision 0063): the stage puts a
 * credential made for this viewer on every offer, and the SDK gives that to the peer connection
 * instead of the token's, which may have expired since the join. No coturn needed: what is
 * checked is the configuration each RTCPeerConnection gets (the relay itself is
 * turn-relay.test.ts's and the network lab's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import wrtc from '@roamhq/wrtc';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { turnRestCredential } from '@tailcam/protocol/turn';
import { startStageWithCameras, type StageWithCameras } from '../testing/stage-with-cameras';
import { StageEvents, StageSubscribeStreamType } from './enums';
import { Stage } from './stage';
import { installBrowserGlobals } from '../testing/browser-globals';

const secret = new TextEncoder().encode('a-fresh-turn-credentials-test-secret-long');
const TURN = {
  urls: ['turn:127.0.0.1:9?transport=tcp'],
  secret: 'a-coturn-static-auth-secret-for-this-test-only',
  credentialMinutes: 1,
};
const STAGE = 'N743AS';

/** The configuration the SDK gave each RTCPeerConnection it made. */
const configurations: RTCConfiguration[] = [];

class RecordedPeerConnection extends wrtc.RTCPeerConnection {
  constructor(configuration: RTCConfiguration = {}) {
    // The TURN URL leads nowhere: host candidates carry the media on loopback.
    super({ ...configuration, iceServers: [] });
    configurations.push(configuration);
  }
}

installBrowserGlobals({ WebSocket, RTCPeerConnection: RecordedPeerConnection });

let running: StageWithCameras;
const stages: Stage[] = [];

beforeAll(async () => {
  running = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: [STAGE],
    turn: TURN,
  });
}, 30_000);

afterAll(async () => {
  for (const stage of stages.splice(0)) stage.leave();
  await running?.close();
  await running?.cameras.close();
});

describe('TURN credentials for a subscription', () => {
  it("gives each peer connection a credential made for its offer, not the token's expired one", async () => {
    // The token's credential expired a minute ago, as one does in a session longer than it.
    const expiredAt = Math.floor(Date.now() / 1000) - 60;
    const expired = { urls: TURN.urls, ...turnRestCredential(TURN.secret, 'user-1', expiredAt) };
    const token = await issueParticipantToken({
      secret,
      participantId: 'long-session-viewer',
      stageId: STAGE,
      userId: 'user-1',
      attributes: {},
      capabilities: { publish: false, subscribe: true },
      stageBaseUrl: `${running.url}/stage`,
      ttlSeconds: 60,
      iceServers: [expired],
    });
    const stage = new Stage(token, {
      stageStreamsToPublish: () => [],
      shouldPublishParticipant: () => false,
      shouldSubscribeToParticipant: () => [StageSubscribeStreamType.VIDEO],
    });
    stages.push(stage);
    const streams = new Promise<void>((resolve) =>
      stage.on(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, () => resolve()),
    );
    const before = configurations.length;
    const offeredFrom = Math.floor(Date.now() / 1000);
    await stage.join();
    await streams;
    const [server, ...others] = configurations[before]?.iceServers ?? [];
    expect(others).toEqual([]);
    expect(server?.urls).toEqual(TURN.urls);
    const [expiry, userId] = String(server?.username).split(':');
    expect(userId).toBe('user-1');
    // Made when the stage offered: good for at least the configured minute from then.
    expect(Number(expiry)).toBeGreaterThanOrEqual(offeredFrom + TURN.credentialMinutes * 60);
    expect(server?.credential).toBe(
      turnRestCredential(TURN.secret, 'user-1', Number(expiry)).credential,
    );
  }, 30_000);
});
