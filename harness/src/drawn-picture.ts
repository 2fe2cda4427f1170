/**
 * The picture the harness's WHIP publisher page draws instead of a browser's camera
 * (page/drawn-camera.ts): a 4:3 field of one colour the tests chose, with a thin moving bar so the
 * encoder always has a new frame. A test tells it apart from the synthetic camera (16:9, grey, its
 * time strip) by that colour and shape, which every browser and version sends alike; a browser's
 * own fake camera draws differently from one version to the next.
 */

/** Red, green, blue of the field: a magenta that nothing else on a Tailcam page draws. */
export const DRAWN_PICTURE_COLOUR: readonly [number, number, number] = [200, 40, 180];

/** Per channel, how far a coded and scaled pixel may stray from the colour and still count. */
export const DRAWN_PICTURE_TOLERANCE = 48;

/** The default size, 4:3 (the simulcast spec asks for a larger one). */
export const DRAWN_PICTURE_SIZE = { width: 640, height: 480 };

/** What a test read of a picture: its size and the share of its pixels in the drawn colour. */
export interface PictureReading {
  width: number;
  height: number;
  /** Share of the pixels within DRAWN_PICTURE_TOLERANCE of DRAWN_PICTURE_COLOUR, 0–1. */
  drawnColour: number;
}

/** The share of `pixels` (RGBA) within `tolerance` of `colour` on every channel. */
export function shareOfColour(
  pixels: Uint8ClampedArray,
  colour: readonly [number, number, number] = DRAWN_PICTURE_COLOUR,
  tolerance = DRAWN_PICTURE_TOLERANCE,
): number {
  const [red, green, blue] = colour;
  let near = 0;
  for (let index = 0; index < pixels.length; index += 4) {
    if (
      Math.abs((pixels[index] ?? 0) - red) <= tolerance &&
      Math.abs((pixels[index + 1] ?? 0) - green) <= tolerance &&
      Math.abs((pixels[index + 2] ?? 0) - blue) <= tolerance
    ) {
      near += 1;
    }
  }
  return pixels.length === 0 ? 0 : near / (pixels.length / 4);
}

/** The publisher page's picture: 4:3 and mostly the drawn colour (the bar covers 1/16). */
export function isDrawnPicture(seen: PictureReading | null): boolean {
  if (!seen) return false;
  return Math.abs(seen.width / seen.height - 4 / 3) < 0.02 && seen.drawnColour > 0.75;
}
