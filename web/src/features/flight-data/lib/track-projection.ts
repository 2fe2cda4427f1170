import type { TrackPoint } from './flight-reading';

/** The inset's drawing box: 0–100 both ways, north up. */
export const TRACK_BOX = 100;
const MARGIN = 10;
/** The least span drawn (about 200 m): a taxi's few metres are not blown up to the whole inset. */
const MIN_SPAN_DEG = 0.002;

export interface ProjectedTrack {
  /** For `<polyline points>`: 'x,y x,y …', oldest first. */
  points: string;
  /** Where the aircraft is now: the last point. */
  current: { x: number; y: number };
}

/**
 * The positions scaled to fit the inset, north up, east right, the same scale both ways (an
 * equirectangular projection about their middle latitude: true enough over a few minutes of
 * flight), centred. No map under it: the product works offline.
 */
export function projectTrack(track: readonly TrackPoint[]): ProjectedTrack | undefined {
  if (track.length === 0) return undefined;
  const latitudes = track.map((point) => point.latitude);
  const longitudes = track.map((point) => point.longitude);
  const middleLatitude = (Math.min(...latitudes) + Math.max(...latitudes)) / 2;
  const eastScale = Math.cos((middleLatitude * Math.PI) / 180);
  const xs = longitudes.map((longitude) => longitude * eastScale);
  const ys = latitudes.map((latitude) => -latitude);
  const [minX, maxX, minY, maxY] = [
    Math.min(...xs),
    Math.max(...xs),
    Math.min(...ys),
    Math.max(...ys),
  ];
  const span = Math.max(maxX - minX, maxY - minY, MIN_SPAN_DEG);
  const scale = (TRACK_BOX - 2 * MARGIN) / span;
  const offsetX = (TRACK_BOX - (maxX - minX) * scale) / 2;
  const offsetY = (TRACK_BOX - (maxY - minY) * scale) / 2;
  const projected = xs.map((x, index) => ({
    x: round(offsetX + (x - minX) * scale),
    y: round(offsetY + ((ys[index] as number) - minY) * scale),
  }));
  return {
    points: projected.map(({ x, y }) => `${x},${y}`).join(' '),
    current: projected.at(-1) as { x: number; y: number },
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
