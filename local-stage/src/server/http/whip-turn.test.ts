/**
 * A real encoder behind a UDP-blocking firewall publishes through TURN over TCP (decision 0063):
 * Meetecho's simple-whip-client with `-f` (the TURN servers from the stage's `Link` headers, which
 * it asks for with an OPTIONS carrying its token before it gathers) and `-F` (relay candidates
 * only), Debian's coturn on loopback with the REST scheme's short-lived credentials. Skipped,
 * saying so, without either.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { coturnMissing, startCoturn, type RunningCoturn } from '../../testing/coturn';
import { startLocalStage, type RunningStage } from '../start';
import { stageStatsSchema } from '../../control';

const WHIP_CLIENT = fileURLToPath(
  new URL('../../../../node_modules/.cache/tailcam-whip-client/whip-client', import.meta.url),
);
const missing =
  coturnMissing() ??
  (existsSync(WHIP_CLIENT)
    ? undefined
    : `no GStreamer WHIP client at ${WHIP_CLIENT} (node scripts/ensure-whip-client.mjs)`);
if (missing !== undefined) console.warn(`SKIPPED whip-turn.test.ts: ${missing}`);

const secret = new TextEncoder().encode('a-whip-turn-test-secret-of-enough-length');
const TURN_SECRET = 'a-coturn-static-auth-secret-for-the-whip-test';
const STAGE = 'N743AS';
const VP8_PIPELINE =
  'videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=15/1 ! videoconvert ! ' +
  'queue ! vp8enc deadline=1 keyframe-max-dist=30 ! rtpvp8pay pt=96 ! queue ! ' +
  'application/x-rtp,media=video,encoding-name=VP8,payload=96';

let coturn: RunningCoturn | undefined;
let running: RunningStage | undefined;
let client: ChildProcess | undefined;

beforeAll(async () => {
  if (missing !== undefined) return;
  coturn = await startCoturn({ secret: TURN_SECRET });
  running = await startLocalStage({
    host: '127.0.0.1',
    port: 0,
    secret,
    faultsEnabled: false,
    syntheticCameras: [],
    turn: {
      urls: [`turn:127.0.0.1:${coturn.port}?transport=tcp`],
      secret: TURN_SECRET,
      credentialMinutes: 5,
    },
  });
});

afterAll(async () => {
  if (client?.exitCode === null && client.signalCode === null) client.kill('SIGKILL');
  await running?.close();
  await coturn?.close();
});

async function publisherOnAir() {
  const response = await fetch(`${running?.url}/_stats`);
  if (!response.ok) throw new Error(`/_stats answered ${response.status}`);
  return stageStatsSchema.parse(await response.json()).stages[STAGE]?.publisher ?? null;
}

describe.skipIf(missing !== undefined)('a WHIP encoder through TURN over TCP', () => {
  it("publishes with relay-only ICE, its TURN server and credential from the stage's Link headers", async () => {
    if (running === undefined || coturn === undefined) throw new Error('not started');
    const publishToken = await issueParticipantToken({
      secret,
      participantId: crypto.randomUUID(),
      stageId: STAGE,
      userId: 'encoder-n743as',
      attributes: {},
      capabilities: { publish: true, subscribe: false },
      stageBaseUrl: `${running.url}/stage`,
      ttlSeconds: 600,
    });
    const started = Date.now();
    const child = spawn(
      WHIP_CLIENT,
      [
        '-u',
        `${running.url}/stage/whip/${STAGE}`,
        '-t',
        publishToken,
        '-o',
        '-f',
        '-F',
        '-l',
        '5',
      ].concat(['-V', VP8_PIPELINE]),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    client = child;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let output = '';
    const keep = (chunk: Buffer) => (output += chunk.toString());
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const log = () => output.replace(/Bearer Token:\s+\S+/, 'Bearer Token: (left out)');
    try {
      await expect
        .poll(publisherOnAir, { timeout: 15_000, interval: 100 })
        .toMatchObject({ kind: 'encoder', video: 'video/VP8' });
      await expect
        .poll(async () => (await publisherOnAir())?.videoPackets ?? 0, { timeout: 5_000 })
        .toBeGreaterThan(30);
    } catch (error) {
      console.error(`the client's log:\n${log()}\ncoturn's log:\n${coturn.log()}`);
      throw error;
    }
    console.log(
      `simple-whip-client start → on air through coturn TURN-over-TCP: ${Date.now() - started} ms`,
    );
    // Its only candidate was a relay; coturn allocated it for the token's user, by REST username.
    expect(log()).toMatch(/Auto configuration of STUN\/TURN servers/);
    child.kill('SIGINT');
    await expect.poll(publisherOnAir, { timeout: 5_000 }).toBeNull();
    // The client's output is buffered: read once it has stopped.
    await exited;
    expect(log()).toMatch(/Sending candidates: candidate:\S+ 1 UDP \d+ \S+ \d+ typ relay/);
    expect(log()).not.toMatch(/Sending candidates: .* typ (host|srflx)/);
    expect(coturn.log()).toMatch(
      /user <\d+:encoder-n743as>: incoming packet ALLOCATE processed, success/,
    );
  }, 30_000);
});
