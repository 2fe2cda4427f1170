/**
 * Faults during playback, in Chromium, on instances of this spec's own (the harness's Product):
 * the stage process killed, the cameras asleep, the API restarted, the database stopped. The product the global
 * setup shares with the other specs is never touched.
 */
import { Product } from '@tailcam/harness/product';
import { signIn } from '@tailcam/harness/sign-in';
import { E2E_PORT, ownInstance } from './support/environment';
import { ThrowawayPostgres } from '@tailcam/harness/throwaway-postgres';
import {
  countLoads,
  expect,
  expectVideoPlaying,
  playerVideo,
  recordWhenShown,
  test,
  videoTrackId,
} from './support/fixtures';

const VIEWER = { username: 'fault-viewer', password: 'fault viewer password 1' };
const SPARE = { username: 'fault-spare', password: 'spare password 1' };
const DISABLED = { username: 'fault-disabled', password: 'disabled password 1' };
/** 28543 with the suite's default ports (below the ephemeral range, as ownInstance's). */
const POSTGRES_PORT = E2E_PORT + 10_463;
const CONNECTION_LOST = 'Connection lost. Reconnecting...';

test.describe('faults during playback (embedded database)', () => {
  let product: Product;
  let loginToken: string;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    product = new Product(ownInstance('faults', 0));
    product.addViewer(VIEWER);
    await product.start();
    loginToken = await product.loginToken(VIEWER);
  });

  test.afterAll(async () => {
    await product?.dispose();
  });

  test("the stage process killed: 'Connection lost. Reconnecting...', then video again, without a reload", async ({
    page,
  }) => {
    await signIn(page, loginToken);
    const connectionLostShown = await recordWhenShown(page, CONNECTION_LOST);
    const loads = countLoads(page);
    await page.goto(`${product.baseUrl}/player/N743AS`);
    await expectVideoPlaying(page);
    const loadsBefore = loads();
    const trackBefore = await videoTrackId(page);
    const killed = product.stagePid();
    if (killed === undefined) throw new Error('no stage process to kill');

    process.kill(killed, 'SIGKILL');

    await expect.poll(connectionLostShown, { timeout: 10_000 }).toBe(true);
    // scripts/start.mjs starts a new stage; the player rejoins it by itself.
    await expect.poll(() => product.stagePid(), { timeout: 20_000 }).toEqual(expect.any(Number));
    expect(product.stagePid()).not.toBe(killed);
    await expect(page.getByText(CONNECTION_LOST)).toBeHidden({ timeout: 30_000 });
    // A new track from the new stage, playing in the same page.
    await expect.poll(() => videoTrackId(page), { timeout: 20_000 }).not.toBe(trackBefore);
    await expectVideoPlaying(page);
    expect(loads()).toBe(loadsBefore);
    // The new stage holds exactly this viewer: the retries left nothing behind.
    await expect
      .poll(async () => {
        const stats = await product.stage.stats();
        return { sockets: stats.sockets, peerConnections: stats.peerConnections };
      })
      .toEqual({ sockets: 1, peerConnections: 1 });
  });

  test("the camera process killed: the stream is removed and added again, without 'Connection lost' or a reload", async ({
    page,
  }) => {
    await signIn(page, loginToken);
    const connectionLostShown = await recordWhenShown(page, CONNECTION_LOST);
    const loads = countLoads(page);
    await page.goto(`${product.baseUrl}/player/N954AS`);
    await expectVideoPlaying(page);
    const loadsBefore = loads();
    const trackBefore = await videoTrackId(page);
    const stagePid = product.stagePid();
    const killed = product.camerasPid();
    if (killed === undefined) throw new Error('no camera process to kill');

    const killedAt = performance.now();
    process.kill(killed, 'SIGKILL');

    // scripts/start.mjs starts a new camera process; it publishes again, and the player attaches
    // the new participant's video: the viewer's session to the stage was never touched.
    await expect.poll(() => videoTrackId(page), { timeout: 20_000 }).not.toBe(trackBefore);
    const newTrackMs = performance.now() - killedAt;
    await expectVideoPlaying(page);
    console.log(
      `camera process killed → new track in the player: ${Math.round(newTrackMs)} ms, playing by ${Math.round(performance.now() - killedAt)} ms`,
    );
    expect(product.camerasPid()).not.toBe(killed);
    expect(product.stagePid()).toBe(stagePid);
    expect(await connectionLostShown()).toBe(false);
    expect(loads()).toBe(loadsBefore);
  });

  test('cameras asleep (decision 0074): the player wakes them and plays, with no error on the way', async ({
    page,
  }) => {
    await product.stage.idle();
    // The idle spell cut short; the rest is the product's own: the camera process ends its WHIP
    // sessions, and the player's token request and join wake it.
    expect(await product.stage.sleepCameras()).toEqual({ asleep: true });
    await expect
      .poll(async () => (await product.stage.stats()).stages.N953AS?.camera.state)
      .toBe('asleep');
    expect((await product.stage.stats()).stages.N953AS?.publisher).toBeNull();
    await signIn(page, loginToken);
    const connectionLostShown = await recordWhenShown(page, CONNECTION_LOST);
    await page.goto(`${product.baseUrl}/player/N953AS`);
    await expectVideoPlaying(page);
    await expect(page.getByRole('alert')).toHaveCount(0);
    expect(await connectionLostShown()).toBe(false);
    expect((await product.stage.stats()).cameras).toBe('awake');
  });

  test("the API restarted: the player gives up with 'Stream Unavailable', and 'Retry Connection' recovers", async ({
    page,
  }) => {
    test.setTimeout(150_000);
    // The page's clock (Playwright's): it runs on by itself, and skips the waits between the
    // player's attempts below.
    await page.clock.install();
    await signIn(page, loginToken);
    const connectionLostShown = await recordWhenShown(page, CONNECTION_LOST);
    const loads = countLoads(page);
    await page.goto(`${product.baseUrl}/player/N953AS`);
    await expectVideoPlaying(page);
    const loadsBefore = loads();
    const trackBefore = await videoTrackId(page);

    // The API goes (and with it, as scripts/start.mjs is built, the stage) ...
    await product.stop();
    await expect.poll(connectionLostShown, { timeout: 10_000 }).toBe(true);
    const lostAt = await page.evaluate(() => Date.now());
    // ... for longer than the player's reconnect schedule (about 15 s), so it gives up. An attempt
    // whose token came just before the stage went waits at most 10 s for its join (the attempt
    // bound), where the SDK's own join would keep trying for a minute. Those waits run on the
    // page's clock, 2 s at a step, with real time between the steps for each attempt's requests.
    const overlay = page.getByRole('alert').filter({ hasText: 'Stream Unavailable' });
    let steps = 0;
    for (; steps < 30 && !(await overlay.isVisible()); steps += 1) {
      await page.clock.fastForward(2_000);
      await page.waitForTimeout(250);
    }
    await expect(overlay).toBeVisible({ timeout: 75_000 });
    // Not before its schedule's waits (0.5 + 1 + 2 + 4 + 8 s), less the moment 'Connection lost'
    // took to be seen.
    const triedForMs = (await page.evaluate(() => Date.now())) - lostAt;
    console.log(`the player gave up ${triedForMs} ms after the loss on the page's clock`);
    expect(triedForMs).toBeGreaterThan(14_000);

    // The same instance comes back (same data directory: same secrets, same accounts).
    await product.start();
    await page.getByRole('button', { name: 'Retry Connection' }).click();
    await expect(overlay).toBeHidden({ timeout: 20_000 });
    await expect.poll(() => videoTrackId(page), { timeout: 20_000 }).not.toBe(trackBefore);
    await expectVideoPlaying(page);
    expect(loads()).toBe(loadsBefore);
    // The login token from before the restart still works: nothing had to sign in again.
    await expect(playerVideo(page)).toBeVisible();
    expect(page.url()).toBe(`${product.baseUrl}/player/N953AS`);
  });
});

test.describe('faults during playback (PostgreSQL)', () => {
  let postgres: ThrowawayPostgres | undefined;
  let product: Product | undefined;
  let unavailable: string | undefined;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    const created = ThrowawayPostgres.create({ port: POSTGRES_PORT });
    if ('unavailable' in created) {
      unavailable = created.unavailable;
      console.warn(
        `\n${'#'.repeat(78)}\n#  SKIPPED: the database fault test: ${unavailable}\n${'#'.repeat(78)}\n`,
      );
      return;
    }
    postgres = created;
    product = new Product({ ...ownInstance('faults-postgres', 2), databaseUrl: postgres.url });
    await product.start();
    product.addViewer(VIEWER);
    product.addViewer(SPARE);
    product.addViewer(DISABLED);
    product.users(['disable', DISABLED.username]);
  });

  test.afterAll(async () => {
    await product?.dispose();
    postgres?.destroy();
  });

  test('the database stopped: a clear 503 for sign-in, video goes on, sign-in works when it returns, no account lost', async ({
    page,
  }) => {
    test.skip(unavailable !== undefined, `PostgreSQL cannot be had here: ${unavailable}`);
    test.setTimeout(60_000);
    const db = postgres!;
    const tailcam = product!;
    const accountsBefore = tailcam.users(['list']);
    expect(accountsBefore).toContain(VIEWER.username);
    const loginToken = await tailcam.loginToken(VIEWER);
    await signIn(page, loginToken);
    await page.goto(`${tailcam.baseUrl}/player/N954AS`);
    await expectVideoPlaying(page);

    db.stop();

    const refused = await tailcam.login(VIEWER);
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as unknown;
    expect(body).toEqual({ error: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(
      new RegExp(`ECONNREFUSED|${POSTGRES_PORT}|postgres`, 'i'),
    );
    expect((await fetch(`${tailcam.baseUrl}/api/ready`)).status).toBe(503);
    const token = await fetch(`${tailcam.baseUrl}/api/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${loginToken}` },
      body: JSON.stringify({ stageId: 'N954AS', clientId: '6f1c3a52-6f0e-4a63-9d8b-7d7c4c7f8a11' }),
    });
    expect(token.status).toBe(503);
    // Media does not need the database: the viewer already watching keeps watching.
    await expectVideoPlaying(page);

    expect(db.start()).toBeUndefined();

    await expect
      .poll(async () => (await tailcam.login(VIEWER)).status, { timeout: 15_000 })
      .toBe(200);
    expect((await fetch(`${tailcam.baseUrl}/api/ready`)).status).toBe(200);
    expect(tailcam.users(['list'])).toBe(accountsBefore);
    expect((await tailcam.login(SPARE)).status).toBe(200);
    expect((await tailcam.login(DISABLED)).status).toBe(401);
  });
});
