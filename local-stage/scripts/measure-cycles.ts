/**
 * Join/leave cycles against a stage process (`npx tsx local-stage/scripts/measure-cycles.ts
 * [cycles]`, after `npm run build -w local-stage`): each cycle joins, waits for a decoded frame
 * and leaves. Reports the stage's peer connections and sockets afterwards (expected 0) and its
 * RSS before, after a warm-up (100 cycles, or a third of the run), and at the end.
 * CYCLES_TRACE=1 prints the RSS every 100 cycles.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { NodeViewer } from '../src/testing/node-viewer';

const cycles = Number(process.argv[2] ?? 300);
// Encoders, camera buffers and allocator pools settle within the first hundred cycles.
const warmUpCycles = Math.min(100, Math.floor(cycles / 3));
const port = 19000 + Math.floor(Math.random() * 1000);
const secretText = 'cycles-secret-that-is-long-enough-for-hs256!';
const secret = new TextEncoder().encode(secretText);
const base = `http://127.0.0.1:${port}`;
const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('../dist/stage.js', import.meta.url))],
  {
    env: { ...process.env, STAGE_PORT: String(port), STAGE_TOKEN_SECRET: secretText },
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);

interface Stats {
  sockets: number;
  peerConnections: number;
  process: { rssBytes: number };
}
const stats = async (): Promise<Stats> => (await (await fetch(`${base}/_stats`)).json()) as Stats;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

try {
  for (
    let attempt = 0;
    !(await fetch(`${base}/stage/health`).then(
      (r) => r.ok,
      () => false,
    ));
    attempt += 1
  ) {
    if (attempt > 100) throw new Error('stage did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const before = await stats();
  let warm = before;
  const started = performance.now();
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const viewer = new NodeViewer(`ws://127.0.0.1:${port}/stage/events`);
    await viewer.join(
      await issueParticipantToken({
        secret,
        participantId: `cycle-${cycle}`,
        stageId: STREAM_IDS[cycle % STREAM_IDS.length] ?? 'N743AS',
        userId: 'cycles',
        attributes: {},
        capabilities: { publish: false, subscribe: true },
        stageBaseUrl: `${base}/stage`,
        ttlSeconds: 600,
      }),
    );
    await viewer.subscribe();
    await viewer.waitFor(() => viewer.frames.length > 0, 'a frame');
    viewer.close();
    await viewer.waitFor(() => viewer.closed !== undefined, 'the close');
    if (cycle === warmUpCycles - 1) warm = await stats();
    if (process.env.CYCLES_TRACE && cycle % 100 === 99) {
      console.log(`after ${cycle + 1} cycles: RSS ${mb((await stats()).process.rssBytes)}`);
    }
  }
  for (let attempt = 0; ; attempt += 1) {
    const now = await stats();
    if ((now.peerConnections === 0 && now.sockets === 0) || attempt > 100) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const after = await stats();
  console.log(
    `${cycles} cycles in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `stage holds ${after.peerConnections} peer connections, ${after.sockets} sockets`,
  );
  console.log(
    `stage RSS: start ${mb(before.process.rssBytes)}, after ${warmUpCycles} cycles ${mb(warm.process.rssBytes)}, ` +
      `end ${mb(after.process.rssBytes)} (${(((after.process.rssBytes - warm.process.rssBytes) / warm.process.rssBytes) * 100).toFixed(1)} % since warm-up)`,
  );
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
  process.exit(process.exitCode ?? 0); // see measure-viewers.ts
}
