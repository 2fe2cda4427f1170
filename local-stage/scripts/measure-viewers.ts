/**
 * Measures the stage process with N Node viewers (`npx tsx local-stage/scripts/measure-viewers.ts
 * [viewers] [seconds]`): time from join to the first decoded frame, frame rate per viewer, and
 * the stage process's CPU per viewer. Starts its own stage process (dist/stage.js, so run
 * `npm run build -w local-stage` first) on a free port with a throwaway secret.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { NodeViewer } from '../src/testing/node-viewer';

const viewerCount = Number(process.argv[2] ?? 6);
const seconds = Number(process.argv[3] ?? 10);
const port = 18000 + Math.floor(Math.random() * 1000);
const secretText = 'measure-secret-that-is-long-enough-for-hs256';
const secret = new TextEncoder().encode(secretText);
const base = `http://127.0.0.1:${port}`;

const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('../dist/stage.js', import.meta.url))],
  {
    env: {
      ...process.env,
      STAGE_PORT: String(port),
      STAGE_TOKEN_SECRET: secretText,
      STAGE_FAULTS: '1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);

interface Stats {
  process: { cpuMicros: number };
  stages: Record<string, { camera: { state: string; meanFrameCostMs: number } }>;
}

async function stats(): Promise<Stats> {
  const response = await fetch(`${base}/_stats`);
  if (!response.ok) throw new Error(`stats: ${response.status}`);
  return (await response.json()) as Stats;
}

try {
  for (let attempt = 0; ; attempt += 1) {
    const ok = await fetch(`${base}/stage/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (attempt > 100) throw new Error('stage did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const idleStart = await stats();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleEnd = await stats();
  console.log(
    `idle stage CPU: ${(((idleEnd.process.cpuMicros - idleStart.process.cpuMicros) / 2e6) * 100).toFixed(1)} % of a core`,
  );

  const viewers: NodeViewer[] = [];
  const joinTimes: number[] = [];
  for (let index = 0; index < viewerCount; index += 1) {
    const stageId = STREAM_IDS[index % STREAM_IDS.length] ?? 'N743AS';
    const token = await issueParticipantToken({
      secret,
      participantId: `measure-${index}`,
      stageId,
      userId: 'measure',
      attributes: {},
      capabilities: { publish: false, subscribe: true },
      stageBaseUrl: `${base}/stage`,
      ttlSeconds: 600,
    });
    const viewer = new NodeViewer(`ws://127.0.0.1:${port}/stage/events`);
    const started = performance.now();
    await viewer.join(token);
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.some((f) => f.strip !== null), 'first frame');
    joinTimes.push(performance.now() - started);
    viewers.push(viewer);
  }
  joinTimes.sort((a, b) => a - b);
  console.log(
    `join → first decoded frame (ms): ${joinTimes.map((t) => t.toFixed(0)).join(', ')}; median ${joinTimes[Math.floor(joinTimes.length / 2)]?.toFixed(0)}`,
  );

  const counts = viewers.map((v) => v.frames.length);
  const cpuStart = await stats();
  const wallStart = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpuEnd = await stats();
  const wall = (performance.now() - wallStart) / 1000;
  const fps = viewers.map((v, i) => (v.frames.length - (counts[i] ?? 0)) / wall);
  const ages = viewers.flatMap((v) =>
    v.frames.slice(-30).map((f) => (f.strip ? f.receivedAtMs - f.strip.captureTimeMs : NaN)),
  );
  const cores = (cpuEnd.process.cpuMicros - cpuStart.process.cpuMicros) / 1e6 / wall;
  console.log(
    `frame rate per viewer: min ${Math.min(...fps).toFixed(1)}, max ${Math.max(...fps).toFixed(1)} fps`,
  );
  console.log(
    `capture → Node client frame age (ms, median): ${ages.filter(Number.isFinite).sort((a, b) => a - b)[Math.floor(ages.length / 2)]}`,
  );
  console.log(
    `stage CPU with ${viewerCount} viewers: ${(cores * 100).toFixed(1)} % of a core (${((cores / viewerCount) * 100).toFixed(1)} % per viewer, cameras included)`,
  );
  const cameraFps = Number(process.env.STAGE_CAMERA_FPS ?? 30);
  const cameraCores = Object.values(cpuEnd.stages)
    .filter((stage) => stage.camera.state === 'live')
    .reduce((sum, stage) => sum + (stage.camera.meanFrameCostMs * cameraFps) / 1000, 0);
  console.log(
    `of which cameras (drawing + conversion) ${(cameraCores * 100).toFixed(1)} %; ` +
      `the rest per viewer (encoder, network) ${(((cores - cameraCores) / viewerCount) * 100).toFixed(1)} %`,
  );
  for (const viewer of viewers) viewer.close();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
  // Exit at once: wrtc's native finalizers can abort a natural exit with live peer objects.
  process.exit(process.exitCode ?? 0);
}
