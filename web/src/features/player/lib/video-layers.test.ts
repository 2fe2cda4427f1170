import { describe, expect, it } from 'vitest';
import { layerForWidth, layerName } from './video-layers';

const layers = [
  { label: 'f', width: 640, height: 360 },
  { label: 'h', width: 320, height: 180 },
  { label: 'q', width: 160, height: 90 },
];

describe('video layers', () => {
  it("names a layer by its height: '360p'", () => {
    expect(layerName(layers[0]!)).toBe('360p');
  });

  it.each([
    [1280, null],
    [640, null],
    [399, 'h'],
    [320, 'h'],
    [319, 'q'],
    [100, 'q'],
  ])('a picture %i px wide prefers %s (null: the stage chooses)', (width, expected) => {
    expect(layerForWidth(layers, width)).toBe(expected);
  });

  it('prefers nothing for a video of one layer', () => {
    expect(layerForWidth([layers[0]!], 100)).toBeNull();
  });
});
