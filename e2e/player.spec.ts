import {
  expect,
  expectVideoPlaying,
  playerVideo,
  recordWhenShown,
  signInByApi,
  signInThroughForm,
  test,
} from './support/fixtures';
import { arrive, countJoins, joinsOf } from '@tailcam/harness/arrival';
import { localStage, readFrameStamp } from './support/local-stage';

test.describe('a viewer signing in and watching', () => {
  test('signs in, plays N743AS whose pixels say N743AS, and going back leaves no peer connection on the stage', async ({
    page,
  }) => {
    await signInThroughForm(page);
    await page.getByRole('link', { name: /N743AS/ }).click();
    await expect(page).toHaveURL(/\/player\/N743AS$/);
    await expectVideoPlaying(page);
    await expect(page.getByText('Connecting to stream...')).toBeHidden();

    const video = playerVideo(page);
    expect(await video.evaluate((element: HTMLVideoElement) => element.muted)).toBe(true);
    expect(await video.evaluate((element: HTMLVideoElement) => element.controls)).toBe(true);
    await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe('N743AS');
    await expect
      .poll(async () => (await localStage.stats()).stages.N743AS?.peerConnections)
      .toBe(1);

    await page.getByRole('link', { name: /Back/ }).click();
    await expect(page).toHaveURL(/\/home$/);
    await expect
      .poll(async () => {
        const stats = await localStage.stats();
        return { peerConnections: stats.peerConnections, sockets: stats.sockets };
      })
      .toEqual({ peerConnections: 0, sockets: 0 });
  });
});

test.describe('a person arriving on the stream list', () => {
  test("the pointer's first move joins the three streams on standby, and a click plays its own without a join more", async ({
    page,
  }) => {
    await page.addInitScript(countJoins);
    await signInByApi(page);
    await page.goto('/home');
    await expect(page.getByRole('link', { name: /N953AS/ })).toBeVisible();
    // Long enough for joins on standby, had anything started them (150 ms, then a token each).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await page.evaluate(joinsOf), 'no join before a sign of life').toEqual({
      made: 0,
      open: 0,
    });
    await arrive(page.mouse);
    await expect.poll(() => page.evaluate(joinsOf)).toEqual({ made: 3, open: 3 });

    await page.getByRole('link', { name: /N953AS/ }).click();
    await expect(page).toHaveURL(/\/player\/N953AS$/);
    await expectVideoPlaying(page);
    await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe('N953AS');
    // The player plays the standby join of its stream; the other two left with the page.
    await expect.poll(() => page.evaluate(joinsOf)).toEqual({ made: 3, open: 1 });
  });
});

test.describe('watching a stream', () => {
  test.beforeEach(async ({ page }) => {
    await signInByApi(page);
  });

  test('each stream shows its own aircraft', async ({ page }) => {
    for (const streamId of ['N953AS', 'N954AS']) {
      await page.goto(`/player/${streamId}`);
      await expectVideoPlaying(page);
      await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe(streamId);
    }
  });

  test('subscribes to video only, its offer sent with joined: the stage sends no audio track', async ({
    page,
  }) => {
    // The player's signalling, as the browser sends and receives it (decision 0076).
    const sent: { type?: string; offers?: unknown }[] = [];
    const received: string[] = [];
    page.on('websocket', (socket) => {
      if (!socket.url().endsWith('/stage/events')) return;
      const read = (payload: string | Buffer) =>
        JSON.parse(payload.toString()) as { type?: string; offers?: unknown };
      socket.on('framesent', ({ payload }) => sent.push(read(payload)));
      socket.on('framereceived', ({ payload }) => received.push(read(payload).type ?? ''));
    });
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    expect(sent[0]).toMatchObject({ type: 'join', offers: { audio: false, video: true } });
    expect(received.slice(0, 2)).toEqual(['joined', 'offer']);
    expect(sent.map((message) => message.type)).not.toContain('subscribe');
    const tracks = await playerVideo(page).evaluate((element: HTMLVideoElement) => {
      const stream = element.srcObject as MediaStream | null;
      return stream?.getTracks().map((track) => track.kind) ?? [];
    });
    expect(tracks).toEqual(['video']);
  });

  test("a dropped connection shows 'Connection lost. Reconnecting...' and the video comes back by itself", async ({
    page,
  }) => {
    const connectionLostShown = await recordWhenShown(page, 'Connection lost. Reconnecting...');
    await page.goto('/player/N743AS');
    await expectVideoPlaying(page);
    const tokenCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/token')) tokenCalls.push(request.url());
    });

    expect((await localStage.drop({ stageId: 'N743AS' })).dropped).toBeGreaterThan(0);
    await expect.poll(connectionLostShown).toBe(true);
    await expect(page.getByText('Connection lost. Reconnecting...')).toBeHidden({
      timeout: 20_000,
    });
    await expectVideoPlaying(page);
    expect(tokenCalls.length).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await readFrameStamp(page))?.streamId).toBe('N743AS');
    await expect.poll(async () => (await localStage.stats()).peerConnections).toBe(1);
  });
});
