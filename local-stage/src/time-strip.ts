/**
 * The time strip: a row of large black and white cells along the bottom of every camera frame
 * that says, in pixels, which stream this is, which frame, and when it was captured. A test
 * reads it back from a decoded video frame (a browser's ImageData, or a Node client's I420
 * luma) to check that it sees the right aircraft and to measure how old the frame is.
 *
 * Layout (see docs/decisions/0021-time-strip-format.md): 2 rows of 40 square cells, each cell
 * width/40 pixels wide (16 px at 640x360), at the bottom-left corner, full width. Cells in
 * row-major order:
 *   0-3    calibration: white, black, white, black (sets the black/white threshold)
 *   4-51   capture time, milliseconds since the Unix epoch, 48 bits, most significant first
 *   52-55  stream index (position in STREAM_IDS), 4 bits
 *   56-71  frame counter modulo 65536, 16 bits
 *   72-79  CRC-8 (polynomial 0x07) over cells 4-71
 * White is a 1 bit. Pure code with no DOM or Node dependency: the camera, the Node test client
 * and a browser page (dist/time-strip.js, the global TailcamTimeStrip) all use this module.
 */

export const TIME_STRIP_COLUMNS = 40;
export const TIME_STRIP_ROWS = 2;
const CELL_COUNT = TIME_STRIP_COLUMNS * TIME_STRIP_ROWS;
const CALIBRATION = [true, false, true, false] as const;
const TIME_BITS = 48;
const STREAM_BITS = 4;
const FRAME_BITS = 16;
const CRC_BITS = 8;
const PAYLOAD_BITS = TIME_BITS + STREAM_BITS + FRAME_BITS;

export interface TimeStripPayload {
  /** Capture time, milliseconds since the Unix epoch. */
  captureTimeMs: number;
  /** Index of the stream in the fixed stream list (0 = N743AS, 1 = N953AS, 2 = N954AS). */
  streamIndex: number;
  /** Frame counter of the camera, modulo 65536. */
  frame: number;
}

/** Where the strip lies in a frame of the given size (pixels; cells are square). */
export function timeStripGeometry(width: number, height: number) {
  const cellSize = width / TIME_STRIP_COLUMNS;
  return {
    cellSize,
    x: 0,
    y: height - TIME_STRIP_ROWS * cellSize,
    width,
    height: TIME_STRIP_ROWS * cellSize,
  };
}

function pushBits(bits: boolean[], value: number, count: number): void {
  for (let bit = count - 1; bit >= 0; bit -= 1) {
    bits.push(Math.floor(value / 2 ** bit) % 2 === 1);
  }
}

function readBits(bits: readonly boolean[], from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index += 1)
    value = value * 2 + (bits[index] ? 1 : 0);
  return value;
}

function crc8(bits: readonly boolean[]): number {
  let crc = 0;
  for (const bit of bits) {
    const top = ((crc >> 7) & 1) === 1;
    crc = (crc << 1) & 0xff;
    if (top !== bit) crc ^= 0x07;
  }
  return crc;
}

/** The 80 cells of the strip for a payload, true for white. */
export function encodeTimeStrip(payload: TimeStripPayload): boolean[] {
  const { captureTimeMs, streamIndex, frame } = payload;
  if (!Number.isInteger(captureTimeMs) || captureTimeMs < 0 || captureTimeMs >= 2 ** TIME_BITS) {
    throw new RangeError(`captureTimeMs out of range: ${captureTimeMs}`);
  }
  if (!Number.isInteger(streamIndex) || streamIndex < 0 || streamIndex >= 2 ** STREAM_BITS) {
    throw new RangeError(`streamIndex out of range: ${streamIndex}`);
  }
  const payloadBits: boolean[] = [];
  pushBits(payloadBits, captureTimeMs, TIME_BITS);
  pushBits(payloadBits, streamIndex, STREAM_BITS);
  pushBits(payloadBits, ((frame % 65536) + 65536) % 65536, FRAME_BITS);
  const cells = [...CALIBRATION, ...payloadBits];
  pushBits(cells, crc8(payloadBits), CRC_BITS);
  return cells;
}

/** The minimal 2D context the strip is drawn with (a canvas 2D context fits). */
export interface FillRectContext {
  fillStyle: unknown;
  fillRect(x: number, y: number, width: number, height: number): void;
}

/** Draws the strip for `payload` onto a frame of the given size. */
export function drawTimeStrip(
  context: FillRectContext,
  width: number,
  height: number,
  payload: TimeStripPayload,
): void {
  const geometry = timeStripGeometry(width, height);
  const cells = encodeTimeStrip(payload);
  context.fillStyle = '#000000';
  context.fillRect(geometry.x, geometry.y, geometry.width, geometry.height);
  context.fillStyle = '#ffffff';
  cells.forEach((white, index) => {
    if (!white) return;
    const column = index % TIME_STRIP_COLUMNS;
    const row = Math.floor(index / TIME_STRIP_COLUMNS);
    // Cells snap to whole pixels so neighbouring cells neither overlap nor leave a seam.
    const x0 = Math.round(column * geometry.cellSize);
    const x1 = Math.round((column + 1) * geometry.cellSize);
    const y0 = Math.round(geometry.y + row * geometry.cellSize);
    const y1 = Math.round(geometry.y + (row + 1) * geometry.cellSize);
    context.fillRect(x0, y0, x1 - x0, y1 - y0);
  });
}

/** Luma of black and white in limited-range (BT.601) video, as libyuv's RGB → I420 gives. */
const LUMA_BLACK = 16;
const LUMA_WHITE = 235;

/**
 * Writes the strip for `payload` straight into an I420 frame (Y plane, then U, then V): the
 * same cells as drawTimeStrip, in neutral grey chroma. Width and height must be even.
 */
export function writeTimeStripI420(
  frame: { width: number; height: number; data: Uint8Array },
  payload: TimeStripPayload,
): void {
  const { width, height, data } = frame;
  const geometry = timeStripGeometry(width, height);
  const cells = encodeTimeStrip(payload);
  const top = Math.round(geometry.y);
  for (let row = 0; row < TIME_STRIP_ROWS; row += 1) {
    const y0 = Math.round(geometry.y + row * geometry.cellSize);
    const y1 = Math.min(height, Math.round(geometry.y + (row + 1) * geometry.cellSize));
    for (let column = 0; column < TIME_STRIP_COLUMNS; column += 1) {
      const x0 = Math.round(column * geometry.cellSize);
      const x1 = Math.round((column + 1) * geometry.cellSize);
      const luma = cells[row * TIME_STRIP_COLUMNS + column] ? LUMA_WHITE : LUMA_BLACK;
      for (let y = y0; y < y1; y += 1) data.fill(luma, y * width + x0, y * width + x1);
    }
  }
  const chromaWidth = width / 2;
  const chromaTop = Math.floor(top / 2);
  const uOffset = width * height;
  const vOffset = uOffset + chromaWidth * (height / 2);
  data.fill(128, uOffset + chromaTop * chromaWidth, vOffset);
  data.fill(128, vOffset + chromaTop * chromaWidth, vOffset + chromaWidth * (height / 2));
}

/** Reads the strip through a luma sampler; null when no valid strip is there. */
export function decodeTimeStripWith(
  width: number,
  height: number,
  luma: (x: number, y: number) => number,
): TimeStripPayload | null {
  const geometry = timeStripGeometry(width, height);
  if (geometry.cellSize < 2 || geometry.y < 0) return null;
  // Average the inner half of each cell: edges blur under lossy compression, centres do not.
  const margin = geometry.cellSize / 4;
  const levels: number[] = [];
  for (let index = 0; index < CELL_COUNT; index += 1) {
    const column = index % TIME_STRIP_COLUMNS;
    const row = Math.floor(index / TIME_STRIP_COLUMNS);
    const left = Math.ceil(column * geometry.cellSize + margin);
    const right = Math.floor((column + 1) * geometry.cellSize - margin);
    const top = Math.ceil(geometry.y + row * geometry.cellSize + margin);
    const bottom = Math.floor(geometry.y + (row + 1) * geometry.cellSize - margin);
    let sum = 0;
    let count = 0;
    for (let y = top; y < Math.max(bottom, top + 1); y += 1) {
      for (let x = left; x < Math.max(right, left + 1); x += 1) {
        sum += luma(Math.min(x, width - 1), Math.min(y, height - 1));
        count += 1;
      }
    }
    levels.push(sum / count);
  }
  const white = ((levels[0] ?? 0) + (levels[2] ?? 0)) / 2;
  const black = ((levels[1] ?? 0) + (levels[3] ?? 0)) / 2;
  if (white - black < 64) return null;
  const threshold = (white + black) / 2;
  const cells = levels.map((level) => level > threshold);
  const payloadBits = cells.slice(CALIBRATION.length, CALIBRATION.length + PAYLOAD_BITS);
  const crc = readBits(cells, CALIBRATION.length + PAYLOAD_BITS, CRC_BITS);
  if (crc !== crc8(payloadBits)) return null;
  return {
    captureTimeMs: readBits(payloadBits, 0, TIME_BITS),
    streamIndex: readBits(payloadBits, TIME_BITS, STREAM_BITS),
    frame: readBits(payloadBits, TIME_BITS + STREAM_BITS, FRAME_BITS),
  };
}

/** Decodes the strip from RGBA pixels, e.g. a canvas's `ImageData` of a video frame. */
export function decodeTimeStrip(image: {
  width: number;
  height: number;
  data: ArrayLike<number>;
}): TimeStripPayload | null {
  const { width, height, data } = image;
  if (data.length < width * height * 4) return null;
  return decodeTimeStripWith(width, height, (x, y) => {
    const offset = (y * width + x) * 4;
    return (
      0.299 * (data[offset] ?? 0) +
      0.587 * (data[offset + 1] ?? 0) +
      0.114 * (data[offset + 2] ?? 0)
    );
  });
}

/** Decodes the strip from an I420 frame (only the luma plane is read). */
export function decodeTimeStripFromI420(frame: {
  width: number;
  height: number;
  data: ArrayLike<number>;
}): TimeStripPayload | null {
  const { width, height, data } = frame;
  if (data.length < width * height) return null;
  return decodeTimeStripWith(width, height, (x, y) => data[y * width + x] ?? 0);
}
