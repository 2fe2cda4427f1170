import { describe, expect, it } from 'vitest';
import {
  formatAltitude,
  formatGroundSpeed,
  formatHeading,
  formatVerticalSpeed,
  verticalTrend,
} from './format-flight';

describe('the figures of the HUD', () => {
  it.each([
    [12_500, '12,500 ft'],
    [950.4, '950 ft'],
    [0, '0 ft'],
    [-20, '-20 ft'],
  ])('reads altitude %s as %s', (feet, text) => {
    expect(formatAltitude(feet)).toBe(text);
  });

  it('reads ground speed in whole knots', () => {
    expect(formatGroundSpeed(142.4)).toBe('142 kt');
    expect(formatGroundSpeed(1_024)).toBe('1,024 kt');
  });

  it.each([
    [87, '087°'],
    [0, '360°'],
    [359.6, '360°'],
    [360, '360°'],
    [-90, '270°'],
    [5.2, '005°'],
  ])('reads heading %s as %s', (degrees, text) => {
    expect(formatHeading(degrees)).toBe(text);
  });

  it.each([
    [1_204, '+1,200 ft/min', 'climbing'],
    [-796, '\u2212800 ft/min', 'descending'],
    [4, '0 ft/min', 'level'],
    [-4, '0 ft/min', 'level'],
    [6, '+10 ft/min', 'climbing'],
  ] as const)('reads vertical speed %s as %s, %s', (feetAMinute, text, trend) => {
    expect(formatVerticalSpeed(feetAMinute)).toBe(text);
    expect(verticalTrend(feetAMinute)).toBe(trend);
  });
});
