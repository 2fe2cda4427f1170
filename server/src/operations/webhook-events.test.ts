/**
 * Events end to end (decision 0098): a webhook consumer on 127.0.0.1 receives every event of a
 * WHIP publisher going on and off air, each with the right signature, while the API process is
 * stopped and started again on the same DATA_DIR in the middle (the publisher leaves while it is
 * down): the events the stage kept meanwhile are delivered after the restart, then the off-air
 * event once the grace has passed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStage, type RunningStage } from '@tailcam/local-stage/start';
import { publishNoiseOn } from '@tailcam/local-stage/testing/noise-publisher';
import { forkApi, type ApiProcess } from '../test/api-process';
import { bundleEntry } from '../test/bundle';
import { stageTokenSecret, tempDir } from '../test/helpers';
import { verifyWebhook } from './webhook-signature';

const WEBHOOK_SECRET = 'a-webhook-secret-for-the-events-test-0123456789';
const STAGE = 'N743AS';

let bundledServer: { file: string; remove(): void };
beforeAll(async () => {
  bundledServer = await bundleEntry('src/server.ts');
});
afterAll(() => bundledServer?.remove());

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Delivery {
  body: Record<string, unknown> & { id: string; detail: Record<string, unknown> };
  valid: boolean;
  idHeader: string | undefined;
}

async function startConsumer(): Promise<{ url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      deliveries.push({
        body: JSON.parse(text) as Delivery['body'],
        valid: verifyWebhook({
          secret: new TextEncoder().encode(WEBHOOK_SECRET),
          body: text,
          timestamp: request.headers['tailcam-timestamp'] as string | undefined,
          signature: request.headers['tailcam-signature'] as string | undefined,
          nowSeconds: Date.now() / 1000,
        }),
        idHeader: request.headers['tailcam-event-id'] as string | undefined,
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tailcam`, deliveries };
}

/** The API process, as `npm start` runs it, stopped when the test ends. */
function startApi(env: Record<string, string>): ApiProcess {
  const api = forkApi(bundledServer.file, { LOG_LEVEL: 'info', ...env });
  cleanups.push(api.stop);
  return api;
}

describe('stage events to a webhook', () => {
  it('delivers every event of a WHIP publisher going on and off air, signed, across an API restart', async () => {
    const running: RunningStage = await startLocalStage({
      host: '127.0.0.1',
      port: 0,
      secret: stageTokenSecret,
      faultsEnabled: false,
      syntheticCameras: [],
    });
    cleanups.push(() => running.close());
    const consumer = await startConsumer();
    const dataDir = join(tempDir('tailcam-events-'), 'data');
    const env = {
      DATA_DIR: dataDir,
      LOCAL_STAGE_URL: running.url,
      STAGE_TOKEN_SECRET: new TextDecoder().decode(stageTokenSecret),
      EVENT_WEBHOOK_URLS: consumer.url,
      EVENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      OFF_AIR_GRACE_SECONDS: '1',
    };
    const names = () =>
      consumer.deliveries.map((delivery) => String(delivery.body.detail.event_name));

    const first = startApi(env);
    await first.listening;
    const publisher = await publishNoiseOn({
      secret: stageTokenSecret,
      stageUrl: running.url,
      stageId: STAGE,
      userId: 'encoder-n743as',
      width: 160,
      height: 90,
      fps: 10,
    });
    cleanups.push(() => publisher.close().catch(() => undefined));
    await expect
      .poll(names, { timeout: 15_000 })
      .toEqual(['Participant Joined', 'Participant Published']);

    // The API stops; the publisher leaves while it is down; the API starts again on DATA_DIR.
    await first.stop();
    await publisher.close();
    await expect
      .poll(() => running.stage.eventsAnswer(0).events.length, { timeout: 10_000 })
      .toBe(4);
    const second = startApi(env);
    await second.listening;

    await expect
      .poll(names, { timeout: 15_000 })
      .toEqual([
        'Participant Joined',
        'Participant Published',
        'Participant Unpublished',
        'Participant Left',
        'Off Air',
      ]);
    for (const delivery of consumer.deliveries) {
      expect(delivery.valid).toBe(true);
      expect(delivery.idHeader).toBe(delivery.body.id);
    }
    expect(new Set(consumer.deliveries.map((delivery) => delivery.body.id)).size).toBe(5);
    const stageUpdates = consumer.deliveries.slice(0, 4).map((delivery) => delivery.body);
    for (const event of stageUpdates) {
      expect(event).toMatchObject({
        'detail-type': 'IVS Stage Update',
        source: 'aws.ivs',
        resources: [`arn:aws:ivs:local:000000000000:stage/${STAGE}`],
        detail: {
          user_id: 'encoder-n743as',
          participant_id: stageUpdates[0]!.detail.participant_id,
        },
      });
    }
    // Off air since the publisher went, said once the 1 s grace had passed.
    const offAir = consumer.deliveries[4]!.body;
    const wentAt = Date.parse(String(stageUpdates[2]!.time));
    const since = Date.parse(String(offAir.detail.off_air_since));
    expect(offAir).toMatchObject({
      source: 'tailcam',
      detail: { aircraft: STAGE, grace_seconds: 1 },
    });
    expect(since - wentAt).toBeGreaterThanOrEqual(0);
    expect(since - wentAt).toBeLessThan(1_000);
  }, 60_000);
});
