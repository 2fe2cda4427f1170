/**
 * Flight data from a real encoder (docs/deployment.md, "Flight data from an aircraft's encoder"),
 * as the specs of WHIP publishers check it: the packets they sent, each once a second, reach a
 * viewer's SDK byte for byte, and the player's HUD shows them while the synthetic camera's are
 * long gone.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { flightAt, flightDataAt } from '@tailcam/protocol/flight-data/flight';
import { expect } from './fixtures';
import {
  expectTrueFlightData,
  readHudInPage,
  readInBandMessagesInPage,
  type InBandMessagesRead,
} from './flight-data';

/** The aircraft's packets an encoder was given, in hex, with the capture time each names. */
export class SentFlightData {
  readonly sent = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly stageId: string) {}

  /** A packet for now, to `send` now and every second until `stop`. */
  start(send: (payloadHex: string) => Promise<void> | void): void {
    const next = () => {
      const captureTimeMs = Date.now();
      const payload = Buffer.from(flightDataAt(this.stageId, captureTimeMs)).toString('hex');
      this.sent.set(payload, captureTimeMs);
      void Promise.resolve(send(payload)).catch(() => undefined);
    };
    next();
    this.timer = setInterval(next, 1_000);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * A viewer's SDK (a page of `context` on the app's origin) receives the packets as IVS's in-band
 * messages, each true to its instant, and every one of them is one the encoder was given.
 */
export async function expectSdkReceivesSent(
  context: BrowserContext,
  stageId: string,
  flightData: SentFlightData,
): Promise<void> {
  const reader = await context.newPage();
  await reader.goto('/home');
  const received: InBandMessagesRead = await reader.evaluate(readInBandMessagesInPage, {
    stageId,
    wanted: 6,
  });
  await reader.close();
  expectTrueFlightData(stageId, received);
  expect(received.messages.filter((message) => !flightData.sent.has(message.payload))).toEqual([]);
}

/**
 * The player's HUD shows fresh figures, where the aircraft was at an instant the encoder was
 * given: looked at 4 s after the encoder's picture was shown (`shownAt`), when the synthetic
 * camera's last sample would read 's old'.
 */
export async function expectHudShowsSent(
  page: Page,
  stageId: string,
  flightData: SentFlightData,
  shownAt: number,
): Promise<void> {
  await page.waitForTimeout(Math.max(0, shownAt + 4_000 - Date.now()));
  const hud = page.getByTestId('flight-hud');
  await expect(hud).toBeVisible();
  await expect
    .poll(
      async () => {
        if (/ old/.test((await hud.textContent()) ?? '')) return 'stale';
        const { altitudeFt, groundSpeedKt } = await page.evaluate(readHudInPage);
        const agrees = [...flightData.sent.values()].some((at) => {
          const truth = flightAt(stageId, at);
          return (
            Math.abs(truth.altitudeFt - (altitudeFt ?? NaN)) <= 15 &&
            Math.abs(truth.groundSpeedKt - (groundSpeedKt ?? NaN)) <= 3
          );
        });
        return agrees ? 'agrees' : { altitudeFt, groundSpeedKt };
      },
      { message: "the HUD shows the encoder's flight data", timeout: 10_000 },
    )
    .toBe('agrees');
}
