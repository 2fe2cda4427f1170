/**
 * The synthetic cameras' simulcast: three encodings of the one picture, on Amazon IVS's layered
 * encoding pattern (its Web SDK's defaults: 1.7 Mbit/s at 30 fps, 700 kbit/s at 20, 200 kbit/s at
 * 15, each a quarter of the pixels of the one above), scaled to the camera's size: the top layer
 * keeps the bitrate the cameras have at 360p30 (`TOP_LAYER_KBPS`), the lowest IVS's ratio to it, the
 * middle one lighter than IVS's, so that a 400 kbit/s link carries it with its audio and room to
 * spare (docs/decisions/0092-a-middle-layer-a-weak-link-carries.md). Listed low to high, as
 * libwebrtc lists its own.
 *
 * libwebrtc sends at most as many layers as its table allows for the size of the frames it is
 * given (WebRTC-LegacySimulcastLayerLimit, on in `@roamhq/wrtc` with no way to turn it off): two
 * below 960x540, and then the highest is the one left out. So a simulcast camera draws its frames
 * at least that large (960x540 for a 640x360 camera) and its top layer is scaled down to the
 * camera's size (docs/decisions/0067-simulcast-in.md).
 */

export interface CameraLayer {
  rid: string;
  scaleResolutionDownBy: number;
  /** bits a second */
  maxBitrate: number;
  maxFramerate: number;
}

export interface SimulcastCamera {
  /** The size the camera draws at. */
  capture: { width: number; height: number };
  layers: CameraLayer[];
}

/** What viewers of a 640x360 top layer get: enough for the scene's detail (0.9 Mbit/s). */
export const TOP_LAYER_KBPS = 900;
/**
 * The middle layer's share of the top layer's bitrate: 200 kbit/s at 640x360's 900, not IVS's
 * 700 / 1700 (371). At 371 the encoder sent 267–305 kbit/s, which with the audio and headers is
 * some 90 % of a 400 kbit/s link, and its key frames overflowed the link's queue; at 200 it,
 * the audio, its headers and a probe's 15 % fit three quarters of it (decision 0092).
 */
export const MIDDLE_LAYER_SHARE = 200 / 900;
/** IVS's layers: bitrate share of the top layer, and frame rate (the middle one's share ours). */
const IVS_PATTERN = [
  { rid: 'q', scale: 4, share: 200 / 1700, fps: 15 },
  { rid: 'h', scale: 2, share: MIDDLE_LAYER_SHARE, fps: 20 },
  { rid: 'f', scale: 1, share: 1, fps: 30 },
] as const;
/** libwebrtc's VP8 encodes nothing narrower than this well; a layer below it is left out. */
const MIN_LAYER_WIDTH = 160;
/** The fewest pixels libwebrtc sends three simulcast layers of (its table's 960x540). */
const THREE_LAYER_PIXELS = 960 * 540;

/**
 * The encodings of a `width`x`height` camera at `fps`: the top one at the camera's own size and
 * frame rate, each lower one at half the size, with IVS's frame rate (never above the camera's).
 * The bitrates scale with the top layer's side against 640x360.
 */
export function simulcastCamera(camera: {
  width: number;
  height: number;
  fps: number;
}): SimulcastCamera {
  const upscale = Math.max(1, Math.sqrt(THREE_LAYER_PIXELS / (camera.width * camera.height)));
  const capture = {
    width: Math.ceil((camera.width * upscale) / 2) * 2,
    height: Math.ceil((camera.height * upscale) / 2) * 2,
  };
  const topKbps = TOP_LAYER_KBPS * Math.sqrt((camera.width * camera.height) / (640 * 360));
  const layers = IVS_PATTERN.filter((layer) => camera.width / layer.scale >= MIN_LAYER_WIDTH).map(
    (layer) => ({
      rid: layer.rid,
      scaleResolutionDownBy: (capture.width / camera.width) * layer.scale,
      maxBitrate: Math.round(topKbps * layer.share) * 1000,
      maxFramerate: layer.scale === 1 ? camera.fps : Math.min(layer.fps, camera.fps),
    }),
  );
  return { capture, layers };
}

/** The encoder's start and most, in kbit/s: every layer at its rate from the first frame. */
export function layersBitrate(layers: readonly CameraLayer[]): { start: number; max: number } {
  const total = Math.round(layers.reduce((sum, layer) => sum + layer.maxBitrate, 0) / 1000);
  return { start: total, max: total };
}
