// One-off measurement (not committed): join → first frame naming the aircraft, cameras awake vs just after a sleep.
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { loadavg } from 'node:os';
import { NodeViewer } from './testing/node-viewer';
import { testParticipantToken } from './testing/participant-tokens';
import { startStageWithCameras } from './testing/stage-with-cameras';

const secret = new TextEncoder().encode('a-wake-join-measure-secret-of-enough-length');
const STAGE = 'N743AS';
const running = await startStageWithCameras({ secret, faultsEnabled: false, syntheticCameras: [STAGE], cameraSleepAfterMs: 3000 });
const index = STREAM_IDS.indexOf(STAGE);
const sleep = (ms: number) => new Promise((d) => setTimeout(d, ms));

async function join(): Promise<number> {
  const token = await testParticipantToken({ secret, stageUrl: running.url, stageId: STAGE });
  const viewer = new NodeViewer(`${running.url.replace('http', 'ws')}/stage/events`);
  const started = performance.now();
  const joined = await viewer.join(token);
  let participant = joined.type === 'joined' ? joined.participants[0] : undefined;
  if (!participant) {
    const m = await viewer.waitForMessage((x) => x.type === 'participantJoined');
    participant = m.type === 'participantJoined' ? m.participant : undefined;
  }
  await viewer.subscribe(participant);
  await viewer.waitFor(() => viewer.frames.some((f) => f.strip?.streamIndex === index), 'frame', 15_000);
  const ms = performance.now() - started;
  viewer.close();
  return ms;
}
const awake: number[] = [];
const afterSleep: number[] = [];
console.log('load', loadavg().map((x) => x.toFixed(1)).join(' '));
for (let round = 0; round < 10; round += 1) {
  while (running.stage.stats().cameras !== 'asleep') await sleep(50);
  await sleep(300);
  afterSleep.push(await join());
  // past the camera's idleMs (1 s: it stopped drawing), before the sleep (3 s)
  await sleep(1500);
  // awake: the join of a viewer while another one keeps the cameras awake
  awake.push(await join());
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log('awake', awake.map(Math.round).join(' '), 'median', Math.round(med(awake)));
console.log('after sleep', afterSleep.map(Math.round).join(' '), 'median', Math.round(med(afterSleep)));
console.log('load', loadavg().map((x) => x.toFixed(1)).join(' '));
await running.close();
process.exit(0);
