/**
 * scripts/start.mjs, the `npm start` orchestrator, with the real stage and camera processes
 * (bundled from source into a temporary directory) and a stand-in API (testing/fake-api.mjs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { readSpans } from '@tailcam/protocol/recordings-store';
import { NodeViewer } from './testing/node-viewer';
import { testParticipantToken } from './testing/participant-tokens';
import { readSegment } from './testing/read-segment';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'orchestrator-test-secret-long-enough-for-hs256';
const fakeApi = fileURLToPath(new URL('./testing/fake-api.mjs', import.meta.url));
let stageEntry: string;
let camerasEntry: string;
let thumbnailsEntry: string;
let recorderEntry: string;
const started: ChildProcess[] = [];

let buildDir: string;

beforeAll(async () => {
  // Inside the package, so that the bundle's npm imports resolve as dist/stage.js's do.
  mkdirSync(join(root, 'local-stage/dist'), { recursive: true });
  buildDir = mkdtempSync(join(root, 'local-stage/dist/test-stage-'));
  stageEntry = join(buildDir, 'stage.mjs');
  camerasEntry = join(buildDir, 'cameras.mjs');
  thumbnailsEntry = join(buildDir, 'thumbnails.mjs');
  recorderEntry = join(buildDir, 'recorder.mjs');
  const bundle = (entry: string, outfile: string) =>
    build({
      entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      alias: { '@tailcam/protocol': join(root, 'protocol/src') },
      logLevel: 'warning',
    });
  await Promise.all([
    bundle('./main.ts', stageEntry),
    bundle('./cameras-main.ts', camerasEntry),
    bundle('./thumbnails-main.ts', thumbnailsEntry),
    bundle('./recorder-main.ts', recorderEntry),
  ]);
}, 30_000);

afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs scripts/start.mjs, by default the repository's own; `scriptRoot` for a copy elsewhere. */
function startScript(env: Record<string, string>, scriptRoot = root) {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: scriptRoot,
    env: {
      ...process.env,
      TAILCAM_API_ENTRY: fakeApi,
      TAILCAM_STAGE_ENTRY: stageEntry,
      TAILCAM_CAMERAS_ENTRY: camerasEntry,
      TAILCAM_THUMBNAILS_ENTRY: thumbnailsEntry,
      // The thumbnail process's socket goes there, not into the repository.
      DATA_DIR: join(buildDir, 'data'),
      TAILCAM_RECORDER_ENTRY: recorderEntry,
      RECORDINGS_DIR: join(buildDir, `recordings-${started.length}`),
      STAGE_TOKEN_SECRET: SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const waitForOutput = async (pattern: RegExp, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(output)) {
      if (Date.now() > deadline) throw new Error(`no ${pattern} in output:\n${output}`);
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return output;
  };
  return { child, output: () => output, waitForOutput };
}

function childrenOf(pid: number): number[] {
  const listing = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return listing.stdout
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
}

/** The child of `pid` whose command line contains `name`. */
function childNamed(pid: number, name: string): number | undefined {
  return childrenOf(pid).find((child) =>
    spawnSync('ps', ['-o', 'args=', '-p', String(child)], { encoding: 'utf8' }).stdout.includes(
      name,
    ),
  );
}

async function waitForHealth(
  url: string,
  predicate: (body: { ready?: boolean; publishers?: Record<string, string> }) => boolean,
  what: string,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body: unknown = await fetch(`${url}/stage/health`).then(
      (response) => response.json(),
      () => undefined,
    );
    if (typeof body === 'object' && body !== null && predicate(body)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Each test starts real processes (the stage renders and encodes): ~9 s here when idle, over 20 s
// with both cores busy, so the time limit is not vitest's default.
describe('npm start (scripts/start.mjs)', { timeout: 60_000 }, () => {
  it('prints the URL and demo login once, restarts a dead stage, and SIGTERM leaves no process', async () => {
    const stagePort = await freePort();
    const run = startScript({
      STAGE_PORT: String(stagePort),
      STAGE_FAULTS: '1',
      FAKE_DEMO_VIEWER: 'correct-horse-battery',
    });
    const printed = await run.waitForOutput(/Demo login: demo \/ correct-horse-battery/);
    const url = /Tailcam is running at (\S+)/.exec(printed)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${url}/stage/health`)).json()).toMatchObject({ ready: true });

    // The stage dies: the API keeps serving, the stage comes back on its own.
    await fetch(`http://127.0.0.1:${stagePort}/_faults/restart`, {
      method: 'POST',
      body: '{"hard":true}',
    });
    await run.waitForOutput(/restarting in \d+ ms/);
    expect((await fetch(`${url}/api/health`)).ok).toBe(true);
    const deadline = Date.now() + 10_000;
    while (
      !(await fetch(`${url}/stage/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error(`stage did not come back:\n${run.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(run.output().match(/Tailcam is running/g)).toHaveLength(1);

    const children = childrenOf(run.child.pid ?? 0);
    // The API, the stage, the camera process, the thumbnail process and the recorder.
    expect(children, run.output()).toHaveLength(5);
    run.child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) =>
      run.child.once('exit', (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(0);
    expect(children.filter(isAlive)).toEqual([]);
  });

  it('restarts a dead camera process, whose cameras publish to the stage again', async () => {
    const run = startScript({ STAGE_PORT: String(await freePort()) });
    const printed = await run.waitForOutput(/Tailcam is running at (\S+)/);
    const url = /Tailcam is running at (\S+)/.exec(printed)?.[1] ?? '';
    const allCameras = { N743AS: 'camera', N953AS: 'camera', N954AS: 'camera' };
    expect(await (await fetch(`${url}/stage/health`)).json()).toMatchObject({
      ready: true,
      publishers: allCameras,
    });

    const camerasPid = childNamed(run.child.pid ?? 0, 'cameras.mjs');
    expect(camerasPid).toBeGreaterThan(0);
    process.kill(camerasPid ?? 0, 'SIGKILL');
    // The stage sees the link close and ends the cameras' sessions at once.
    await waitForHealth(
      url,
      (body) => body.publishers?.N743AS === 'none',
      'the camera sessions ending',
      run.output,
    );
    await run.waitForOutput(
      /the camera process stopped \(signal SIGKILL\); restarting in \d+ ms \(restart #1\)/,
    );
    await waitForHealth(
      url,
      (body) =>
        body.ready === true && JSON.stringify(body.publishers) === JSON.stringify(allCameras),
      'the cameras publishing again',
      run.output,
    );
    expect(childNamed(run.child.pid ?? 0, 'cameras.mjs')).not.toBe(camerasPid);
    run.child.kill('SIGTERM');
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(0);
  });

  it('keeps Tailcam running while the thumbnail process keeps failing, restarting it with backoff', async () => {
    const failing = join(buildDir, 'failing-thumbnails.mjs');
    writeFileSync(failing, 'process.exit(1);\n');
    const run = startScript({
      STAGE_PORT: String(await freePort()),
      TAILCAM_THUMBNAILS_ENTRY: failing,
    });
    await run.waitForOutput(/Tailcam is running at/);
    await run.waitForOutput(
      /the thumbnail process stopped \(code 1\); restarting in 800 ms \(restart #3\)/,
    );
    const url = /Tailcam is running at (\S+)/.exec(run.output())?.[1] ?? '';
    expect(await (await fetch(`${url}/stage/health`)).json()).toMatchObject({ ready: true });
    expect(run.child.exitCode).toBeNull();
  });

  it('records a watched camera; a recorder killed with kill -9 mid-segment leaves every earlier segment whole, and records on after its restart', async () => {
    const stagePort = await freePort();
    const recordings = join(buildDir, 'recordings-kill');
    const run = startScript({
      STAGE_PORT: String(stagePort),
      STAGE_SYNTHETIC_CAMERAS: 'N743AS',
      STAGE_CAMERA_WIDTH: '320',
      STAGE_CAMERA_HEIGHT: '180',
      STAGE_CAMERA_SIMULCAST: '0',
      RECORDINGS_DIR: recordings,
      RECORDING_SEGMENT_MS: '1000',
    });
    await run.waitForOutput(/Tailcam is running at/);
    const stageUrl = `http://127.0.0.1:${stagePort}`;
    const viewer = new NodeViewer(`ws://127.0.0.1:${stagePort}/stage/events`);
    try {
      await viewer.join(
        await testParticipantToken({
          secret: new TextEncoder().encode(SECRET),
          stageUrl,
          stageId: 'N743AS',
          ttlSeconds: 600,
        }),
      );
      await viewer.subscribe();
      const finished = async () =>
        (await readSpans(recordings, 'N743AS')).flatMap((span) =>
          span.segments.map((segment) => join(span.dir, segment.name)),
        );
      const parts = () =>
        spawnSync('find', [recordings, '-name', '*.part'], { encoding: 'utf8' }).stdout.trim();
      await expect.poll(finished, { timeout: 30_000, interval: 100 }).toHaveLength(2);
      // Mid-segment: the third is being written.
      await expect.poll(parts, { timeout: 5_000, interval: 20 }).not.toBe('');
      const killedParts = parts().split('\n');
      const recorderPid = childNamed(run.child.pid ?? 0, 'recorder.mjs');
      expect(recorderPid).toBeGreaterThan(0);
      process.kill(recorderPid ?? 0, 'SIGKILL');
      const before = await finished();
      for (const path of before) {
        const read = await readSegment(path);
        expect(read.types[0]).toBe('key');
        expect(read.types.length).toBeGreaterThan(10);
      }
      await run.waitForOutput(/the recorder stopped \(signal SIGKILL\); restarting in \d+ ms/);
      // Restarted: the unfinished segment is gone, and new ones come (in a new span).
      await expect
        .poll(async () => (await finished()).length, { timeout: 30_000, interval: 100 })
        .toBeGreaterThanOrEqual(before.length + 2);
      expect((await readSpans(recordings, 'N743AS')).length).toBe(2);
      expect(await finished()).toEqual(expect.arrayContaining(before));
      // The killed one's .part is gone (with a .grown copy or a half-written preview, if any).
      expect(run.output()).toMatch(/removed [1-9]\d* unfinished segment\(s\) or preview\(s\)/);
      for (const part of killedParts) expect(existsSync(part)).toBe(false);
    } finally {
      viewer.close();
    }
    run.child.kill('SIGTERM');
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(0);
  });

  it('with STAGE_SYNTHETIC_CAMERAS=none the camera process says so and is not started again', async () => {
    const run = startScript({
      STAGE_PORT: String(await freePort()),
      STAGE_SYNTHETIC_CAMERAS: 'none',
    });
    await run.waitForOutput(/Tailcam is running at/);
    expect(run.output()).toContain(
      'STAGE_SYNTHETIC_CAMERAS=none: no synthetic camera to publish; exiting',
    );
    expect(run.output()).not.toMatch(/camera process stopped/);
    expect(childNamed(run.child.pid ?? 0, 'cameras.mjs')).toBeUndefined();
    run.child.kill('SIGTERM');
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(0);
  });

  it('says how to reset the demo login when the API sends none, and restarts a dead API while the stage keeps running', async () => {
    const apiPort = await freePort();
    const run = startScript({ STAGE_PORT: String(await freePort()), PORT: String(apiPort) });
    await run.waitForOutput(/npm run users -- passwd demo/);
    const apiNamed = () => childNamed(run.child.pid ?? 0, 'fake-api');
    const api = apiNamed();
    const stagePid = childNamed(run.child.pid ?? 0, 'stage.mjs');
    expect(api).toBeGreaterThan(0);
    process.kill(api ?? 0, 'SIGKILL');
    await run.waitForOutput(
      /the API stopped \(signal SIGKILL\); restarting in \d+ ms \(restart #1\)/,
    );
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${apiPort}/api/health`).then(
            (response) => response.ok,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(apiNamed()).not.toBe(api);
    expect(childNamed(run.child.pid ?? 0, 'stage.mjs')).toBe(stagePid);
    const children = childrenOf(run.child.pid ?? 0);
    run.child.kill('SIGTERM');
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(0);
    expect(children.filter(isAlive)).toEqual([]);
  });

  it('stops when the API refuses its configuration, without restarting it', async () => {
    const run = startScript({ STAGE_PORT: String(await freePort()), FAKE_API_EXIT_CODE: '2' });
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(2);
    expect(run.output()).toContain('the API refused its configuration (see above); stopping.');
    expect(run.output()).not.toMatch(/restarting/);
  });

  it("gives the stage the repository's .env too, as the API reads it", async () => {
    // A copy of the script in a folder of its own, with a .env there: the repository's own .env
    // is the developer's.
    const copy = mkdtempSync(join(buildDir, 'repo-'));
    mkdirSync(join(copy, 'scripts'));
    mkdirSync(join(copy, 'protocol/src'), { recursive: true });
    copyFileSync(join(root, 'scripts/start.mjs'), join(copy, 'scripts/start.mjs'));
    for (const file of ['reconnect-policy.js', 'reconnect-policy.d.ts']) {
      copyFileSync(join(root, 'protocol/src', file), join(copy, 'protocol/src', file));
    }
    const stagePort = await freePort();
    writeFileSync(join(copy, '.env'), `STAGE_PORT=${stagePort}\n`);
    expect(process.env.STAGE_PORT, 'the environment would win over .env').toBeUndefined();
    const run = startScript({}, copy);
    await run.waitForOutput(/Tailcam is running at/);
    expect(await (await fetch(`http://127.0.0.1:${stagePort}/stage/health`)).json()).toMatchObject({
      ready: true,
    });
    run.child.kill('SIGTERM');
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(0);
  });

  it('with STAGE_PROVIDER=ivs starts the API alone, says so, and offers no demo login', async () => {
    const stagePort = await freePort();
    const run = startScript({ STAGE_PROVIDER: 'ivs', STAGE_PORT: String(stagePort) });
    const printed = await run.waitForOutput(/Press Ctrl-C to stop/);
    expect(printed).toContain(
      '[tailcam] STAGE_PROVIDER=ivs: starting the API alone (Amazon IVS serves the video: no local stage, no demo account).',
    );
    expect(printed).toMatch(/Tailcam is running at http:\/\/127\.0\.0\.1:\d+\n/);
    expect(printed).toContain(
      'Sign in with your account (`npm run users -- add NAME` creates one).',
    );
    expect(printed).not.toMatch(/Demo login|passwd demo/);
    const children = childrenOf(run.child.pid ?? 0);
    expect(children).toHaveLength(1);
    expect(await fetch(`http://127.0.0.1:${stagePort}/stage/health`).catch(() => 'refused')).toBe(
      'refused',
    );
    run.child.kill('SIGTERM');
    expect(await new Promise((resolve) => run.child.once('exit', resolve))).toBe(0);
    expect(children.filter(isAlive)).toEqual([]);
  });
});
