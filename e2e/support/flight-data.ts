/** Flight data in the picture, as the end-to-end specs read it (docs/flight-data.md). */
import { expect, type Page } from '@playwright/test';
import { figuresFromTelemetry } from '@tailcam/protocol/flight-data/figures';
import { flightAt } from '@tailcam/protocol/flight-data/flight';
import { decodeFlightData } from '@tailcam/protocol/flight-data/klv';
import type { InBandMessagesRead } from '@tailcam/harness/in-band-page';

export { readInBandMessagesInPage, type InBandMessagesRead } from '@tailcam/harness/in-band-page';

/** The UUID the IVS SDK writes on its SEI messages, which the local tier carries too. */
export const IVS_SEI_UUID = '9e504ea5ee5a4f02949fb033a3768da2';

/**
 * Checks what a page read: IVS's UUID, 0601 packets each true to `flightAt` at the instant it
 * names (within 0601's scalings: altitude ~0.3 m, speed 1 m/s), at least two instants, and the
 * picture played (the trailer came off before the decoder).
 */
export function expectTrueFlightData(stageId: string, received: InBandMessagesRead): void {
  expect(received.played).toBeGreaterThan(0.5);
  expect(received.messages.length).toBeGreaterThanOrEqual(4);
  const instants = new Set<number>();
  for (const message of received.messages) {
    expect(message.uuid).toBe(IVS_SEI_UUID);
    expect(message.uuidBytes).toBe(16);
    const decoded = decodeFlightData(Uint8Array.from(Buffer.from(message.payload, 'hex')));
    if (!decoded.ok) throw new Error(`not a 0601 packet: ${decoded.message}`);
    const at = decoded.telemetry.captureTimeMs ?? 0;
    instants.add(Math.round(at));
    const shown = figuresFromTelemetry(decoded.telemetry);
    const truth = flightAt(stageId, at);
    expect(Math.abs((shown.altitudeFt ?? NaN) - truth.altitudeFt)).toBeLessThan(3);
    expect(Math.abs((shown.groundSpeedKt ?? NaN) - truth.groundSpeedKt)).toBeLessThan(2);
  }
  // A packet a second, each repeated on the next frames: at least two distinct instants.
  expect(instants.size).toBeGreaterThanOrEqual(2);
}

/** The player's HUD and the frame on screen, read at one instant in the page. */
export interface HudReading {
  altitudeFt: number | undefined;
  groundSpeedKt: number | undefined;
  /** The capture time the shown frame's time strip says (the camera's own record). */
  frameCaptureTimeMs: number | undefined;
}

/** Reads the HUD's figures and the shown frame's strip (needs the page kit installed). */
export const readHudInPage = (): HudReading => {
  const hud = document.querySelector('[data-testid="flight-hud"]');
  const text = hud?.textContent ?? '';
  const number = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match?.[1] === undefined ? undefined : Number(match[1].replaceAll(',', ''));
  };
  const video = document.querySelector('video');
  const kit = (
    window as unknown as {
      TailcamPageKit?: { frameStamp(video: HTMLVideoElement): { captureTimeMs: number } | null };
    }
  ).TailcamPageKit;
  return {
    altitudeFt: number(/(-?[\d,]+) ft(?!\/)/),
    groundSpeedKt: number(/([\d,]+) kt/),
    frameCaptureTimeMs: (video && kit?.frameStamp(video)?.captureTimeMs) ?? undefined,
  };
};

/**
 * Whether the HUD's figures are where the aircraft was within the second before the shown frame
 * was captured (a sample a second; the HUD keeps the newest): the figures of some instant of that
 * second, as the HUD rounds them (altitude to 10 ft, speed to 1 kt, with 0601's 1 m/s step).
 */
export function hudAgreesWithFrame(stageId: string, reading: HudReading): boolean {
  const { altitudeFt, groundSpeedKt, frameCaptureTimeMs } = reading;
  if (altitudeFt === undefined || groundSpeedKt === undefined || !frameCaptureTimeMs) return false;
  // From 100 ms after the frame (a browser that gives frames no capture time shows a sample as it
  // comes, a jitter buffer ahead of its picture) to 1.3 s before it.
  for (let back = -100; back <= 1_300; back += 50) {
    const truth = flightAt(stageId, frameCaptureTimeMs - back);
    if (
      Math.abs(truth.altitudeFt - altitudeFt) <= 15 &&
      Math.abs(truth.groundSpeedKt - groundSpeedKt) <= 3
    ) {
      return true;
    }
  }
  return false;
}

/**
 * 'agrees' when the page's HUD agrees with `stageId`'s flight at the frame shown
 * (`hudAgreesWithFrame`), else what it read and the truth at that frame, for the failure message.
 * Poll it: `expect.poll(() => hudAgreement(page, 'N953AS')).toBe('agrees')`.
 */
export async function hudAgreement(
  page: Page,
  stageId: string,
): Promise<'agrees' | { reading: HudReading; truth: { alt: number; gs: number } }> {
  const reading = await page.evaluate(readHudInPage);
  if (hudAgreesWithFrame(stageId, reading)) return 'agrees';
  const truth = flightAt(stageId, reading.frameCaptureTimeMs ?? 0);
  return { reading, truth: { alt: truth.altitudeFt, gs: truth.groundSpeedKt } };
}
