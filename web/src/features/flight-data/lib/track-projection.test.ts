import { describe, expect, it } from 'vitest';
import { projectTrack } from './track-projection';

function pointsOf(points: string): [number, number][] {
  return points.split(' ').map((pair) => {
    const [x = NaN, y = NaN] = pair.split(',').map(Number);
    return [x, y];
  });
}

describe('projectTrack', () => {
  it('draws nothing without positions', () => {
    expect(projectTrack([])).toBeUndefined();
  });

  it('puts north up and east right, within the inset, the aircraft at the last point', () => {
    const track = [
      { latitude: 47.0, longitude: -122.0 },
      { latitude: 47.1, longitude: -122.0 }, // north
      { latitude: 47.1, longitude: -121.9 }, // then east
    ];
    const projected = projectTrack(track);
    if (!projected) throw new Error('no track');
    const [start = [NaN, NaN], north = [NaN, NaN], east = [NaN, NaN]] = pointsOf(projected.points);
    expect(north[1]).toBeLessThan(start[1]);
    expect(north[0]).toBeCloseTo(start[0]);
    expect(east[0]).toBeGreaterThan(north[0]);
    for (const [x, y] of [start, north, east]) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(100);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(100);
    }
    expect(projected.current).toEqual({ x: east[0], y: east[1] });
    // One scale both ways: 0.1° of longitude at 47° is shorter than 0.1° of latitude.
    expect(east[0] - north[0]).toBeLessThan(start[1] - north[1]);
  });

  it('centres an aircraft standing still', () => {
    const still = { latitude: 47.45, longitude: -122.3 };
    expect(projectTrack([still, still])?.current).toEqual({ x: 50, y: 50 });
  });
});
