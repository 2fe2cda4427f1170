import { describe, expect, it } from 'vitest';
import { layersBitrate, simulcastCamera } from './simulcast';

describe("the cameras' simulcast layers", () => {
  it("are 640x360@30, 320x180@20 and 160x90@15 on IVS's pattern, low to high, drawn at 960x540, the middle one light enough for a 400 kbit/s link", () => {
    const { capture, layers } = simulcastCamera({ width: 640, height: 360, fps: 30 });
    // libwebrtc sends three layers only of frames this large.
    expect(capture).toEqual({ width: 960, height: 540 });
    expect(layers).toEqual([
      { rid: 'q', scaleResolutionDownBy: 6, maxBitrate: 106_000, maxFramerate: 15 },
      { rid: 'h', scaleResolutionDownBy: 3, maxBitrate: 200_000, maxFramerate: 20 },
      { rid: 'f', scaleResolutionDownBy: 1.5, maxBitrate: 900_000, maxFramerate: 30 },
    ]);
    expect(layersBitrate(layers)).toEqual({ start: 1206, max: 1206 });
  });

  it('never run faster than the camera, and leave out a layer narrower than 160', () => {
    const { capture, layers } = simulcastCamera({ width: 320, height: 180, fps: 10 });
    expect(capture).toEqual({ width: 960, height: 540 });
    expect(layers).toEqual([
      { rid: 'h', scaleResolutionDownBy: 6, maxBitrate: 100_000, maxFramerate: 10 },
      { rid: 'f', scaleResolutionDownBy: 3, maxBitrate: 450_000, maxFramerate: 10 },
    ]);
  });

  it('draw a camera of 960x540 or more at its own size', () => {
    const { capture, layers } = simulcastCamera({ width: 1280, height: 720, fps: 30 });
    expect(capture).toEqual({ width: 1280, height: 720 });
    expect(layers.map((layer) => layer.scaleResolutionDownBy)).toEqual([4, 2, 1]);
  });
});
