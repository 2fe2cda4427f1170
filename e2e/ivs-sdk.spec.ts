/**
 * The real Amazon IVS Web Broadcast SDK (from the npm package) against the app, the local SDK and
 * the ivs-mode server, in Chromium, offline. The ivs-mode server is Tailcam's production bundle
 * with STAGE_PROVIDER=ivs (support/ivs-mode.ts); AWS is never reached: wherever IVS would answer
 * (CreateParticipantToken through POST /api/token), the browser is answered by the test, and the
 * test's name says "AWS simulated".
 */
import type { Page } from '@playwright/test';
import type { Product } from '@tailcam/harness/product';
import { arrive, countJoins, joinsOf } from '@tailcam/harness/arrival';
import { expect, test } from './support/fixtures';
import { InBandRateRules } from '@tailcam/local-stage/codecs/in-band';
import { closedPort, ivsLikeToken, ivsModeProduct, readIvsSdk } from './support/ivs-mode';

/**
 * The bad inserts of the in-band messaging API (decision 0094), and what each must be refused
 * for: the real SDK's `LocalStageStream.insertSeiMessage` warns and resolves; the local tier's
 * rules (codecs/in-band.ts) must refuse the same ones for the same reasons.
 */
const BAD_INSERTS = [
  { bytes: 0, repeatCount: 0, reason: 'PAYLOAD_SIZE_INVALID' },
  { bytes: 1_025, repeatCount: 0, reason: 'PAYLOAD_SIZE_INVALID' },
  { bytes: 10, repeatCount: 31, reason: 'INVALID_REPEAT_COUNT' },
  { bytes: 10, repeatCount: -1, reason: 'INVALID_REPEAT_COUNT' },
  { bytes: 1_024, repeatCount: 30, reason: 'PAYLOAD_RATE_EXCEEDED' },
] as const;

/** Every name and value the app (web/src/features/player/lib) and the local SDK rely on. */
const USED_BY_THE_APP = {
  StageEvents: {
    STAGE_CONNECTION_STATE_CHANGED: 'stageConnectionStateChanged',
    STAGE_PARTICIPANT_STREAMS_ADDED: 'stageParticipantStreamsAdded',
    ERROR: 'error',
    STAGE_PARTICIPANT_JOINED: 'stageParticipantJoined',
    STAGE_PARTICIPANT_LEFT: 'stageParticipantLeft',
    STAGE_PARTICIPANT_STREAMS_REMOVED: 'stageParticipantStreamsRemoved',
    STAGE_LEFT: 'stageLeft',
    STAGE_STREAM_SEI_MESSAGE_RECEIVED: 'stageStreamSeiMessageReceived',
  },
  StageConnectionState: {
    DISCONNECTED: 'disconnected',
    CONNECTING: 'connecting',
    CONNECTED: 'connected',
    ERRORED: 'errored',
  },
  SubscribeType: { NONE: 'none', AUDIO_ONLY: 'audio_only', AUDIO_VIDEO: 'audio_video' },
  StageSubscribeStreamType: { AUDIO: 'audio', VIDEO: 'video' },
  StreamType: { AUDIO: 'audio', VIDEO: 'video' },
} as const;

interface SdkShape {
  stageMethods: Record<string, string>;
  /** Every export that is a flat object of strings and numbers: the SDK's enums. */
  enums: Record<string, Record<string, string | number>>;
}

/**
 * What the SDK the page loaded (window.IVSBroadcastClient) exposes. The Stage's methods are read
 * from an instance, never joined: the real SDK defines `leave` per instance, not on the prototype.
 */
function sdkShape(page: Page, participantToken: string): Promise<SdkShape> {
  return page.evaluate((token) => {
    const sdk = (window as unknown as { IVSBroadcastClient?: Record<string, unknown> })
      .IVSBroadcastClient;
    if (!sdk) throw new Error('window.IVSBroadcastClient is missing');
    const Stage = sdk.Stage as new (token: string, strategy: unknown) => Record<string, unknown>;
    const stage = new Stage(token, {
      stageStreamsToPublish: () => [],
      shouldPublishParticipant: () => false,
      shouldSubscribeToParticipant: () => 'none',
    });
    const stageMethods: Record<string, string> = { Stage: typeof Stage };
    for (const method of ['join', 'leave', 'on', 'off'])
      stageMethods[method] = typeof stage[method];
    const enums: Record<string, Record<string, string | number>> = {};
    for (const [name, value] of Object.entries(sdk)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const entries = Object.entries(value);
      if (entries.length === 0) continue;
      if (entries.every(([, item]) => typeof item === 'string' || typeof item === 'number')) {
        enums[name] = Object.fromEntries(entries) as Record<string, string | number>;
      }
    }
    return { stageMethods, enums };
  }, participantToken);
}

function errorOverlay(page: Page) {
  return page.getByRole('alert').filter({ hasText: 'Stream Unavailable' });
}

/** A stored login token: the route guard checks only its presence, and /api/token is simulated. */
async function storeLoginToken(page: Page) {
  await page.addInitScript(() => localStorage.setItem('token', 'e2e-login-token'));
}

/** Answers the page's participant token requests with `participantToken`; counts them. */
async function answerTokenRequests(page: Page, server: Product, participantToken: string) {
  const asked = { count: 0 };
  await page.route(`${server.baseUrl}/api/token`, (route) => {
    asked.count += 1;
    return route.fulfill({ status: 200, json: { token: participantToken } });
  });
  return asked;
}

test.describe('the real Amazon IVS Web Broadcast SDK', () => {
  let ivs: Product;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    ivs = ivsModeProduct();
    await ivs.start();
  });
  test.afterAll(async () => {
    await ivs?.dispose();
  });

  test('is what /sdk/stage.js serves in ivs mode: the package file, as UTF-8 JavaScript', async ({
    request,
  }) => {
    const response = await request.get(`${ivs.baseUrl}/sdk/stage.js`);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/javascript; charset=utf-8');
    expect((await response.body()).equals(readIvsSdk())).toBe(true);
  });

  test('defines every name and enum value the app uses, and the local SDK matches it', async ({
    browser,
  }) => {
    const closed = `127.0.0.1:${await closedPort()}`;
    const token = await ivsLikeToken({
      eventsUrl: `wss://${closed}`,
      whipUrl: `https://${closed}`,
    });
    const page = await browser.newPage();
    await page.goto(`${ivs.baseUrl}/`); // index.html loads the real SDK from /sdk/stage.js
    const real = await sdkShape(page, token);
    await page.goto('/'); // the e2e product in local mode: the local SDK
    const local = await sdkShape(page, token);
    await page.close();

    expect(real.stageMethods).toEqual({
      Stage: 'function',
      join: 'function',
      leave: 'function',
      on: 'function',
      off: 'function',
    });
    expect(local.stageMethods).toEqual(real.stageMethods);
    for (const [enumName, entries] of Object.entries(USED_BY_THE_APP)) {
      for (const [key, value] of Object.entries(entries)) {
        expect(real.enums[enumName]?.[key], `real ${enumName}.${key}`).toBe(value);
        expect(local.enums[enumName]?.[key], `local ${enumName}.${key}`).toBe(value);
      }
    }
    // Nothing the local SDK exports is its own invention: every enum entry is the real one.
    expect(Object.keys(local.enums).length).toBeGreaterThanOrEqual(5);
    for (const [enumName, entries] of Object.entries(local.enums)) {
      for (const [key, value] of Object.entries(entries)) {
        expect(real.enums[enumName]?.[key], `${enumName}.${key} in the real SDK`).toBe(value);
      }
    }
  });

  test('insertSeiMessage warns and resolves on bad input, refusing what the local tier refuses', async ({
    browser,
  }) => {
    const page = await browser.newPage();
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning' && message.text().includes('SEI')) {
        warnings.push(message.text());
      }
    });
    await page.goto(`${ivs.baseUrl}/`); // the real SDK, from /sdk/stage.js
    const outcomes = await page.evaluate(async (inserts) => {
      const { LocalStageStream } = (
        window as unknown as {
          IVSBroadcastClient: {
            LocalStageStream: new (
              track: MediaStreamTrack,
              config?: unknown,
            ) => { insertSeiMessage(payload: ArrayBuffer, options?: unknown): Promise<unknown> };
          };
        }
      ).IVSBroadcastClient;
      const canvas = document.createElement('canvas');
      const [track] = canvas.captureStream(30).getVideoTracks();
      if (!track) throw new Error('no canvas track');
      const enabled = new LocalStageStream(track, { inBandMessaging: { enabled: true } });
      const results: string[] = [];
      for (const { bytes, repeatCount } of inserts) {
        const value = await enabled.insertSeiMessage(new ArrayBuffer(bytes), { repeatCount });
        results.push(value === undefined ? 'resolved' : `resolved with ${String(value)}`);
      }
      const disabled = new LocalStageStream(track);
      const value = await disabled.insertSeiMessage(new ArrayBuffer(8));
      results.push(value === undefined ? 'resolved' : `resolved with ${String(value)}`);
      return results;
    }, BAD_INSERTS);
    await page.close();

    expect(outcomes).toEqual(Array(BAD_INSERTS.length + 1).fill('resolved'));
    expect(warnings).toEqual([
      ...BAD_INSERTS.map(({ reason }) => `Unable to insert SEI message due to ${reason}`),
      'Unable to insert SEI message due to INBAND_MESSAGING_NOT_ENABLED',
    ]);
    for (const { bytes, repeatCount, reason } of BAD_INSERTS) {
      expect(new InBandRateRules(30, () => 0).check(bytes, repeatCount)).toBe(reason);
    }
  });

  test('makes no join on standby: the pointer moving on /home opens no connection (IVS bills a participant from its join; AWS simulated)', async ({
    page,
  }) => {
    await page.addInitScript(countJoins);
    await storeLoginToken(page);
    const closed = `127.0.0.1:${await closedPort()}`;
    const tokens = await answerTokenRequests(
      page,
      ivs,
      await ivsLikeToken({ eventsUrl: `wss://${closed}`, whipUrl: `https://${closed}` }),
    );
    await page.goto(`${ivs.baseUrl}/home`);
    await expect(page.getByRole('link', { name: /N953AS/ })).toBeVisible();
    await arrive(page.mouse);
    // With the local SDK the joins on standby start 150 ms after the move, each with its token
    // (player.spec.ts): two seconds with the real one, and no token asked for, no socket.
    await page.waitForTimeout(2_000);
    expect(tokens.count).toBe(0);
    expect(await page.evaluate(joinsOf)).toEqual({ made: 0, open: 0 });
    // The page is the app's, and its click still joins: a token, then the real SDK's connection.
    await page.getByRole('link', { name: /N953AS/ }).click();
    await expect.poll(() => tokens.count).toBeGreaterThan(0);
    await expect.poll(async () => (await page.evaluate(joinsOf)).made).toBeGreaterThan(0);
  });

  test("a malformed participant token (AWS simulated) shows 'Stream Unavailable' with the SDK's own message", async ({
    page,
  }) => {
    await storeLoginToken(page);
    await answerTokenRequests(page, ivs, 'not-a-jwt');
    await page.goto(`${ivs.baseUrl}/player/N743AS`);
    await expect(errorOverlay(page)).toContainText('[JOIN_ERROR] Token is malformed');
    await expect(page.getByRole('button', { name: 'Retry Connection' })).toBeVisible();
    await expect(page.getByText('Connecting to stream...')).toBeHidden();
  });

  test('an unreachable stage (token endpoints on a closed local port; AWS simulated) ends the loading state with the SDK timeout error after its minute (on the page clock)', async ({
    page,
  }) => {
    // The SDK gives up after about a minute (docs/product.md#stage-sdk): the page's clock runs
    // that minute in 5 s steps (Playwright's clock), each with a moment of real time for the
    // SDK's real connection attempts between them.
    test.setTimeout(60_000);
    await page.clock.install();
    const port = await closedPort();
    const closed = `127.0.0.1:${port}`;
    await storeLoginToken(page);
    await answerTokenRequests(
      page,
      ivs,
      await ivsLikeToken({ eventsUrl: `wss://${closed}`, whipUrl: `https://${closed}` }),
    );
    // The ivs-mode CSP admits *.live-video.net only, so it would block the closed port and the
    // join would fail for the wrong reason. The page keeps the server's ivs-mode CSP with the
    // closed port admitted beside *.live-video.net, standing in for IVS's hosts.
    await page.route(`${ivs.baseUrl}/player/N743AS`, async (route) => {
      const response = await route.fetch();
      const csp = response.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("connect-src 'self' https://*.live-video.net wss://*.live-video.net");
      await route.fulfill({
        response,
        headers: {
          ...response.headers(),
          'content-security-policy': csp.replace(
            'connect-src ',
            `connect-src wss://${closed} https://${closed} `,
          ),
        },
      });
    });
    await page.addInitScript(() => {
      const blocked: string[] = [];
      (window as unknown as { cspBlocked: string[] }).cspBlocked = blocked;
      document.addEventListener('securitypolicyviolation', (event) => {
        blocked.push(event.blockedURI);
      });
    });
    const attempts: string[] = [];
    page.on('websocket', (socket) => attempts.push(socket.url()));

    await page.goto(`${ivs.baseUrl}/player/N743AS`);
    await expect(page.getByText('Connecting to stream...')).toBeVisible();
    let steps = 0;
    for (; steps < 16 && !(await errorOverlay(page).isVisible()); steps += 1) {
      await expect(page.getByText('Connecting to stream...')).toBeVisible();
      await page.clock.fastForward(5_000);
      await page.waitForTimeout(300);
    }
    console.log(`the IVS SDK gave up after ${steps * 5} s on the page's clock`);
    // Not sooner than the SDK's own minute, less a step.
    expect(steps).toBeGreaterThanOrEqual(11);
    await expect(errorOverlay(page)).toContainText('[JOIN_ERROR] Operation timed out', {
      timeout: 10_000,
    });
    await expect(page.getByText('Connecting to stream...')).toBeHidden();
    // It failed because nothing answered, not because the page forbade the connection.
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((url) => url.startsWith(`wss://${closed}/`))).toBe(true);
    const blocked = await page.evaluate(
      () => (window as unknown as { cspBlocked: string[] }).cspBlocked,
    );
    expect(blocked.filter((uri) => uri.includes(closed))).toEqual([]);
  });

  test('the ivs-mode CSP lets the page reach *.live-video.net and nothing else off-origin', async ({
    page,
  }) => {
    const port = await closedPort();
    await page.goto(`${ivs.baseUrl}/`);
    const blocked = await page.evaluate(async (closedPortNumber) => {
      const seen: string[] = [];
      document.addEventListener('securitypolicyviolation', (event) => seen.push(event.blockedURI));
      const targets = [
        'https://broadcast.stats.live-video.net/',
        'https://prod.ivs-device-config.live-video.net/broadcast-web-v1.json',
        `http://127.0.0.1:${closedPortNumber}/`,
        'https://example.com/',
      ];
      await Promise.all(targets.map((url) => fetch(url).catch(() => undefined)));
      for (const url of [
        'wss://global.events.live-video.net/',
        `ws://127.0.0.1:${closedPortNumber}/`,
      ]) {
        try {
          new WebSocket(url).close();
        } catch {
          // A blocked WebSocket may throw; the violation event says which.
        }
      }
      await new Promise((done) => setTimeout(done, 500));
      return seen;
    }, port);
    expect(blocked.sort()).toEqual(
      [`http://127.0.0.1:${port}/`, 'https://example.com/', `ws://127.0.0.1:${port}/`].sort(),
    );
  });
});
