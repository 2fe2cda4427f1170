import { fillText } from '@/config/ui-text';
import { flightText } from '@/config/ui-text-flight';

// The product's strings are English: its separators too, whatever the browser's language.
const wholeNumber = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** '12,500 ft' */
export function formatAltitude(altitudeFt: number): string {
  return fillText(flightText.altitudeValue, { value: wholeNumber.format(altitudeFt) });
}

/** '142 kt' */
export function formatGroundSpeed(groundSpeedKt: number): string {
  return fillText(flightText.groundSpeedValue, { value: wholeNumber.format(groundSpeedKt) });
}

/** '087°', '360°' for north: headings read in three digits, as on a compass card. */
export function formatHeading(headingDeg: number): string {
  const whole = Math.round(((headingDeg % 360) + 360) % 360) % 360;
  return fillText(flightText.headingValue, { value: String(whole || 360).padStart(3, '0') });
}

export type VerticalTrend = 'climbing' | 'descending' | 'level';

/** The vertical speed rounded to tens of feet a minute, as shown (never -0). */
function verticalTens(verticalSpeedFpm: number): number {
  return Math.round(verticalSpeedFpm / 10) * 10 || 0;
}

/** Which way the figure shown says the aircraft goes: level when it reads 0. */
export function verticalTrend(verticalSpeedFpm: number): VerticalTrend {
  const tens = verticalTens(verticalSpeedFpm);
  return tens > 0 ? 'climbing' : tens < 0 ? 'descending' : 'level';
}

/** '+1,200 ft/min', '−800 ft/min' (a true minus), '0 ft/min': rounded to tens. */
export function formatVerticalSpeed(verticalSpeedFpm: number): string {
  const tens = verticalTens(verticalSpeedFpm);
  const sign = tens > 0 ? '+' : tens < 0 ? '\u2212' : '';
  return fillText(flightText.verticalSpeedValue, {
    value: `${sign}${wholeNumber.format(Math.abs(tens))}`,
  });
}
