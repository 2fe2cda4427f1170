import { RtcpPacketConverter } from 'werift';
import { describe, expect, it } from 'vitest';
import { VideoLayers } from './layers';
import { encodeRemb } from './remb';
import { ESTIMATE_TTL_MS, ViewerAdaptation } from './viewer-adaptation';

function adaptation(videoSsrc = 1234) {
  return new ViewerAdaptation({
    layers: () => new VideoLayers([]),
    current: () => undefined,
    pad: () => 0,
    paused: () => false,
    onPaused: () => undefined,
    videoSsrc: () => videoSsrc,
  });
}

describe('a viewer’s bandwidth estimate', () => {
  it('is the REMB its browser sends about the video it gets, as werift parses it', () => {
    const viewer = adaptation();
    const [remb] = RtcpPacketConverter.deSerialize(encodeRemb(99, 412_345, [1234, 5678]));
    expect(remb).toBeDefined();
    if (remb) viewer.onRtcp(remb, 1_000);
    // REMB keeps 18 bits of mantissa: exact below 262,144 << exponent.
    expect(viewer.estimate(1_000)).toBeGreaterThan(412_000);
    expect(viewer.estimate(1_000)).toBeLessThanOrEqual(412_345);
  });

  it('ignores a REMB about other streams, and forgets one that is stale', () => {
    const viewer = adaptation();
    const [other] = RtcpPacketConverter.deSerialize(encodeRemb(99, 300_000, [42]));
    if (other) viewer.onRtcp(other, 0);
    expect(viewer.estimate(0)).toBeUndefined();
    const [remb] = RtcpPacketConverter.deSerialize(encodeRemb(99, 300_000, [1234]));
    if (remb) viewer.onRtcp(remb, 0);
    expect(viewer.estimate(ESTIMATE_TTL_MS)).toBe(300_000);
    expect(viewer.estimate(ESTIMATE_TTL_MS + 1)).toBeUndefined();
  });
});
