/**
 * The stage's figures for Prometheus (decision 0097): `GET /_control/metrics` answers the API
 * alone, counts a player watching a synthetic camera and its leaving, and labels only with the
 * configured tail numbers and fixed values, never a participant or user. CarriedCounts keeps a
 * counter growing when the publishers and subscriptions whose counts it sums end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection } from 'werift';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { issueStageControlToken } from '@tailcam/protocol/stage-control';
import { testParticipantToken } from '../../testing/participant-tokens';
import { startStageWithCameras, type StageWithCameras } from '../../testing/stage-with-cameras';
import { waitUntil } from '../../testing/wait-until';
import { vp8Codec } from '../../testing/werift-codecs';
import { CarriedCounts } from './carried-counts';

const secret = new TextEncoder().encode('a-stage-metrics-test-secret-of-enough-length');
const STAGE = 'N743AS';
let running: StageWithCameras;

beforeAll(async () => {
  running = await startStageWithCameras({
    secret,
    faultsEnabled: false,
    syntheticCameras: [STAGE],
    camera: { width: 320, height: 180, fps: 15, idleMs: 1000 },
  });
}, 30_000);

afterAll(() => running.close());

async function scrape(): Promise<string> {
  const response = await fetch(`${running.url}/_control/metrics`, {
    headers: { authorization: `Bearer ${await issueStageControlToken(secret)}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The value of one series (`name{labels}`) in Prometheus text, or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every label value of every series, by label name. */
function labelValues(text: string): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    for (const [, name, labelValue] of line.matchAll(/(\w+)="([^"]*)"/g)) {
      if (!values.has(name!)) values.set(name!, new Set());
      values.get(name!)!.add(labelValue!);
    }
  }
  return values;
}

async function whepPlayer() {
  const token = await testParticipantToken({
    secret,
    stageUrl: running.url,
    participantId: 'participant-of-a-person',
    stageId: STAGE,
    userId: 'user-of-a-person',
  });
  const peer = new RTCPeerConnection({
    codecs: { video: [vp8Codec()], audio: [] },
    iceServers: [],
    iceUseIpv6: false,
  });
  let packets = 0;
  peer
    .addTransceiver('video', { direction: 'recvonly' })
    .onTrack.subscribe((track) => track.onReceiveRtp.subscribe(() => (packets += 1)));
  await peer.setLocalDescription(await peer.createOffer());
  const response = await fetch(`${running.url}/stage/whep/${STAGE}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${token}` },
    body: peer.localDescription?.sdp,
  });
  expect(response.status).toBe(201);
  await peer.setRemoteDescription({ type: 'answer', sdp: await response.text() });
  await waitUntil(() => packets > 0, "the player's first video");
  return { peer, token, location: new URL(response.headers.get('location')!, running.url) };
}

describe('GET /_control/metrics', () => {
  it("answers only the API's control token", async () => {
    const without = await fetch(`${running.url}/_control/metrics`);
    expect(without.status).toBe(401);
    const forged = await fetch(`${running.url}/_control/metrics`, {
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(forged.status).toBe(401);
  });

  it('counts a player watching the camera and its leaving, labelled by tail number alone', async () => {
    const before = await scrape();
    expect(value(before, `tailcam_aircraft_viewers{aircraft="${STAGE}"}`)).toBe(0);
    for (const aircraft of STREAM_IDS) {
      expect(before).toContain(`tailcam_aircraft_on_air{aircraft="${aircraft}"}`);
    }

    const player = await whepPlayer();
    const watching = await scrape();
    expect(value(watching, `tailcam_aircraft_viewers{aircraft="${STAGE}"}`)).toBe(1);
    expect(value(watching, `tailcam_aircraft_on_air{aircraft="${STAGE}"}`)).toBe(1);
    expect(
      value(
        watching,
        `tailcam_aircraft_publisher_info{aircraft="${STAGE}",source="camera",codec="VP8"}`,
      ),
    ).toBe(1);
    expect(value(watching, `tailcam_stage_join_seconds_count{aircraft="${STAGE}"}`)).toBe(1);
    expect(value(watching, `tailcam_stage_key_frames_total{aircraft="${STAGE}"}`)).toBeGreaterThan(
      0,
    );
    expect(value(watching, `tailcam_stage_sessions{aircraft="${STAGE}",role="viewer"}`)).toBe(1);
    const layers = watching
      .split('\n')
      .filter((line) => line.startsWith(`tailcam_aircraft_viewers_by_layer{aircraft="${STAGE}"`));
    expect(layers.reduce((sum, line) => sum + Number(line.split(' ')[1]), 0)).toBe(1);

    const keyFrames = value(watching, `tailcam_stage_key_frames_total{aircraft="${STAGE}"}`)!;
    const left = await fetch(player.location, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${player.token}` },
    });
    expect(left.status).toBe(200);
    await player.peer.close();
    await waitUntil(
      () => running.stage.stats().stages[STAGE]?.publisher?.viewers === 0,
      'the player to be gone',
    );
    const after = await scrape();
    expect(value(after, `tailcam_aircraft_viewers{aircraft="${STAGE}"}`)).toBe(0);
    expect(value(after, `tailcam_stage_join_seconds_count{aircraft="${STAGE}"}`)).toBe(1);
    expect(
      value(after, `tailcam_stage_key_frames_total{aircraft="${STAGE}"}`),
    ).toBeGreaterThanOrEqual(keyFrames);

    const labels = labelValues(`${watching}\n${after}`);
    expect([...labels.keys()].sort()).toEqual(
      ['aircraft', 'codec', 'layer', 'le', 'role', 'source'].sort(),
    );
    for (const aircraft of labels.get('aircraft')!) expect(STREAM_IDS).toContain(aircraft);
    for (const layer of labels.get('layer')!)
      expect(['1', '2', '3', '4', 'paused']).toContain(layer);
    expect(watching).not.toContain('participant-of-a-person');
    expect(watching).not.toContain('user-of-a-person');
  });
});

describe('CarriedCounts', () => {
  it("keeps what ended sources counted, once, and adds the live ones' counts", () => {
    const counts = new Map<object, number>();
    const totals = new CarriedCounts<object, { n: number }>(
      (source) => ({ n: counts.get(source) ?? 0 }),
      () => ({ n: 0 }),
    );
    const first = {};
    const second = {};
    counts.set(first, 5);
    expect(totals.totals([[first, 'N743AS']]).get('N743AS')).toEqual({ n: 5 });
    counts.set(first, 7);
    counts.set(second, 2);
    // `first` went between two readings: its last count (7) is kept.
    expect(totals.totals([[second, 'N743AS']]).get('N743AS')).toEqual({ n: 9 });
    // Told of an end, even twice, and then a reading without it: counted once.
    counts.set(second, 3);
    totals.ended(second, 'N743AS');
    totals.ended(second, 'N743AS');
    expect(totals.totals([]).get('N743AS')).toEqual({ n: 10 });
    expect(totals.totals([[second, 'N743AS']]).get('N743AS')).toEqual({ n: 10 });
  });
});
