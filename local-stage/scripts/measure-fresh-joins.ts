/**
 * First joins of freshly started stage processes (`npx tsx local-stage/scripts/measure-fresh-joins.ts
 * [rounds]`, after `npm run build -w local-stage`): each round starts `dist/stage.js` and the
 * camera process (`dist/cameras.js`, N953AS only), waits for the camera on air, joins one
 * Node viewer (libwebrtc, the DTLS client as a browser is), waits for a decoded frame and kills the
 * process. A cold process is where werift's DTLS server is slowest and the viewer retransmits its
 * hellos, so this is where a handshake can get stuck (docs/decisions/0026-one-encoder-per-camera.md):
 * it reports how many rounds ended in the stage's `dtls-timeout` or without a frame, and the median
 * join → first frame. Run it with both cores busy to make stalls likelier.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { issueStageControlToken } from '@tailcam/protocol/stage-control';
import { NodeViewer } from '../src/testing/node-viewer';

const rounds = Number(process.argv[2] ?? 40);
const secretText = 'fresh-joins-secret-that-is-long-enough-for-hs256';
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const basePort = 19000 + Math.floor(Math.random() * 900);

async function startStage(port: number) {
  const env = {
    ...process.env,
    STAGE_PORT: String(port),
    STAGE_TOKEN_SECRET: secretText,
    STAGE_SYNTHETIC_CAMERAS: 'N953AS',
  };
  const stage = spawn(process.execPath, ['dist/stage.js'], {
    cwd: packageDir,
    env,
    stdio: 'ignore',
  });
  const cameras = spawn(process.execPath, ['dist/cameras.js'], {
    cwd: packageDir,
    env,
    stdio: 'ignore',
  });
  const kill = () => {
    stage.kill();
    cameras.kill('SIGKILL');
  };
  // Ready: the camera is on air, so the join is a stage's first, as after `npm start`.
  const deadline = Date.now() + 20_000;
  for (;;) {
    // As the API does: the stage is not ready before it has a table of token generations.
    await fetch(`http://127.0.0.1:${port}/_control/token-generations`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await issueStageControlToken(new TextEncoder().encode(secretText))}`,
      },
      body: JSON.stringify({ generations: {} }),
    }).catch(() => undefined);
    const health = await fetch(`http://127.0.0.1:${port}/stage/health`).catch(() => undefined);
    if (health?.ok) return { kill };
    if (Date.now() > deadline) {
      kill();
      throw new Error('the stage and its camera were not ready in 20 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const joinTimes: number[] = [];
let stuck = 0;
for (let round = 0; round < rounds; round += 1) {
  const port = basePort + (round % 50);
  const stage = await startStage(port);
  const token = await issueParticipantToken({
    secret: new TextEncoder().encode(secretText),
    participantId: `fresh-${round}`,
    stageId: 'N953AS',
    userId: 'measure',
    attributes: {},
    capabilities: { publish: false, subscribe: true },
    stageBaseUrl: `http://127.0.0.1:${port}/stage`,
    ttlSeconds: 60,
  });
  const viewer = new NodeViewer(`ws://127.0.0.1:${port}/stage/events`);
  const started = performance.now();
  const ended = () => viewer.messages.some((message) => message.type === 'subscriptionEnded');
  try {
    await viewer.join(token);
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.length > 0 || ended(), 'a frame', 8_000);
  } catch {
    // Counted below: no frame.
  }
  const elapsed = performance.now() - started;
  const ok = viewer.frames.length > 0 && !ended();
  if (ok) joinTimes.push(elapsed);
  else stuck += 1;
  console.log(
    `round ${round}: ${ok ? 'frame' : ended() ? 'subscription ended' : 'no frame'} after ` +
      `${elapsed.toFixed(0)} ms (peer ${viewer.peerState ?? 'none'})`,
  );
  viewer.close();
  stage.kill();
  await new Promise((resolve) => setTimeout(resolve, 100));
}
joinTimes.sort((a, b) => a - b);
const median = joinTimes[Math.floor(joinTimes.length / 2)];
console.log(
  `${rounds} fresh stages: ${stuck} without video; join → first frame median ` +
    `${median === undefined ? '–' : median.toFixed(0)} ms`,
);
process.exit(stuck > 0 ? 1 : 0);
