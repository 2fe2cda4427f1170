/**
 * What each synthetic aircraft camera shows: a view over the wing, with sky, clouds and terrain
 * sliding past, and a HUD (tail number, UTC clock, frame counter). Each tail number has its own
 * palette and scenery so that a person can tell the streams apart at a glance; the time strip
 * along the bottom lets a machine do the same.
 */
import type { SKRSContext2D } from '@napi-rs/canvas';
import { drawTimeStrip, timeStripGeometry } from '../time-strip';

interface Palette {
  skyTop: string;
  skyBottom: string;
  far: string;
  near: string;
  cloud: string;
  wing: string;
  accent: string;
  /** Terrain roughness: bigger is hillier. */
  relief: number;
  /** How fast the ground slides past, in widths per minute. */
  speed: number;
}

const PALETTES: Record<string, Palette> = {
  // Midday over green hills.
  N743AS: {
    skyTop: '#1e5fb4',
    skyBottom: '#9ccbf0',
    far: '#5f8f5a',
    near: '#2f6b34',
    cloud: 'rgba(255,255,255,0.85)',
    wing: '#d7dde4',
    accent: '#ffd23f',
    relief: 0.09,
    speed: 6,
  },
  // Sunset over the desert.
  N953AS: {
    skyTop: '#3b1f5c',
    skyBottom: '#f39a4b',
    far: '#8a4b3a',
    near: '#4a2a25',
    cloud: 'rgba(255,190,150,0.7)',
    wing: '#9aa0aa',
    accent: '#ff5d8f',
    relief: 0.14,
    speed: 4,
  },
  // Grey dawn over the sea.
  N954AS: {
    skyTop: '#27343f',
    skyBottom: '#8fa7b3',
    far: '#3f5f74',
    near: '#1f3b4f',
    cloud: 'rgba(220,230,235,0.6)',
    wing: '#bfc6cc',
    accent: '#5ef2c5',
    relief: 0.03,
    speed: 8,
  },
};

const FALLBACK_PALETTE = PALETTES.N743AS as Palette;

export interface SceneFrame {
  streamId: string;
  streamIndex: number;
  frame: number;
  /** Wall-clock capture time, ms since the epoch (drawn in the HUD and the strip). */
  captureTimeMs: number;
}

function ridge(x: number, phase: number, relief: number, seed: number): number {
  return (
    relief *
    (Math.sin(x * 2.1 + phase + seed) * 0.6 +
      Math.sin(x * 5.3 + phase * 1.7 + seed * 2) * 0.3 +
      Math.sin(x * 11.7 + phase * 2.9) * 0.1)
  );
}

export function drawScene(
  context: SKRSContext2D,
  width: number,
  height: number,
  scene: SceneFrame,
): void {
  const palette = PALETTES[scene.streamId] ?? FALLBACK_PALETTE;
  const strip = timeStripGeometry(width, height);
  const viewHeight = strip.y;
  const seconds = scene.captureTimeMs / 1000;
  const horizon = viewHeight * (0.55 + 0.03 * Math.sin(seconds * 0.4)); // a gentle bank

  const sky = context.createLinearGradient(0, 0, 0, horizon);
  sky.addColorStop(0, palette.skyTop);
  sky.addColorStop(1, palette.skyBottom);
  context.fillStyle = sky;
  context.fillRect(0, 0, width, horizon + 1);

  // Clouds drift slowly across the sky.
  context.fillStyle = palette.cloud;
  for (let index = 0; index < 4; index += 1) {
    const span = width * 1.4;
    const x = ((index * 0.37 + seconds * 0.02 * (1 + index * 0.3)) % 1) * span - width * 0.2;
    const y = horizon * (0.2 + 0.15 * index);
    context.beginPath();
    context.ellipse(width - x, y, width * 0.08, height * 0.03, 0, 0, Math.PI * 2);
    context.ellipse(
      width - x + width * 0.05,
      y + 4,
      width * 0.06,
      height * 0.025,
      0,
      0,
      Math.PI * 2,
    );
    context.fill();
  }

  // Two layers of terrain, the nearer one sliding faster (parallax).
  const phase = (seconds * palette.speed * Math.PI * 2) / 60;
  for (const [color, depth, speed, seed] of [
    [palette.far, 0.0, 0.5, 1],
    [palette.near, 0.12, 1, 4],
  ] as const) {
    context.fillStyle = color;
    context.beginPath();
    context.moveTo(0, viewHeight);
    const steps = 32;
    for (let step = 0; step <= steps; step += 1) {
      const u = step / steps;
      const y = horizon + viewHeight * (depth + ridge(u, phase * speed, palette.relief, seed));
      context.lineTo(u * width, Math.min(y, viewHeight));
    }
    context.lineTo(width, viewHeight);
    context.closePath();
    context.fill();
  }

  // The wing, from the cabin window: a fixed silhouette with a blinking tip light.
  context.fillStyle = palette.wing;
  context.beginPath();
  context.moveTo(width * 0.38, viewHeight);
  context.lineTo(width * 0.98, viewHeight * 0.78);
  context.lineTo(width, viewHeight * 0.8);
  context.lineTo(width, viewHeight);
  context.closePath();
  context.fill();
  if (Math.floor(seconds * 2) % 2 === 0) {
    context.fillStyle = palette.accent;
    context.beginPath();
    context.arc(width * 0.975, viewHeight * 0.78, Math.max(3, width * 0.006), 0, Math.PI * 2);
    context.fill();
  }

  // HUD.
  const fontSize = Math.round(height / 12);
  context.fillStyle = 'rgba(0,0,0,0.45)';
  context.fillRect(0, 0, width, fontSize * 1.6);
  context.fillStyle = palette.accent;
  context.font = `bold ${fontSize}px sans-serif`;
  context.textBaseline = 'middle';
  context.textAlign = 'left';
  context.fillText(scene.streamId, fontSize * 0.5, fontSize * 0.8);
  context.fillStyle = '#ffffff';
  context.font = `${Math.round(fontSize * 0.7)}px monospace`;
  context.textAlign = 'right';
  const clock = new Date(scene.captureTimeMs).toISOString().slice(11, 23);
  context.fillText(`${clock} UTC  #${scene.frame}`, width - fontSize * 0.5, fontSize * 0.8);

  drawTimeStrip(context, width, height, {
    captureTimeMs: scene.captureTimeMs,
    streamIndex: scene.streamIndex,
    frame: scene.frame,
  });
}
