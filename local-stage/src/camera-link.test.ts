import { describe, expect, it } from 'vitest';
import { encodeCameraInBandMessage, parseCameraInBandMessage } from './camera-link';
import { IVS_SEI_UUID } from './codecs/in-band';

describe("the camera link's in-band message", () => {
  it('goes as it came', () => {
    const message = {
      stageId: 'N743AS',
      captureTimeMs: 1_764_400_000_123.5,
      repeatCount: 3,
      uuid: IVS_SEI_UUID,
      payload: Uint8Array.of(6, 14, 43, 52, 0, 0, 1),
    };
    expect(parseCameraInBandMessage(encodeCameraInBandMessage(message))).toEqual(message);
  });

  it('is refused when it is something else, empty or cut short', () => {
    const whole = encodeCameraInBandMessage({
      stageId: 'N743AS',
      captureTimeMs: 1,
      repeatCount: 0,
      uuid: IVS_SEI_UUID,
      payload: Uint8Array.of(1),
    });
    expect(parseCameraInBandMessage(Buffer.from('{"type":"demand"}'))).toBeUndefined();
    expect(parseCameraInBandMessage(whole.subarray(0, whole.length - 1))).toBeUndefined();
    expect(parseCameraInBandMessage(Buffer.alloc(0))).toBeUndefined();
  });
});
