/**
 * The aircraft's cabin sound: a quiet engine drone (two low tones with a slow beat and a little
 * noise), sent only to viewers whose strategy asks for audio. One RTCAudioSource and one track
 * per aircraft (encoded once, by the camera's WHIP publisher), fed 10 ms frames of 48 kHz mono
 * while at least one viewer listens; scheduled against a monotonic clock so it neither drifts nor
 * bursts after a stall. The drone repeats exactly after a whole number of its periods, so one loop of it
 * (2–3 s) is computed once and each frame is a copy out of it, not 480 samples of sines.
 */
import { RTCAudioSource, type NodeAudioSource, type NodeMediaStreamTrack } from './wrtc';

const SAMPLE_RATE = 48_000;
const FRAME_MS = 10;
const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000;
const MAX_CATCH_UP_FRAMES = 5;
/** A whole number of periods of every component below, so wrapping the phase is seamless. */
const PHASE_PERIOD = 388 * Math.PI;

export class CabinAudio {
  private readonly source: NodeAudioSource = new RTCAudioSource();
  /** The aircraft's one audio track (the camera's publisher sends it). */
  readonly track: NodeMediaStreamTrack = this.source.createTrack();
  private readonly listeners = new Set<object>();
  private readonly samples = new Int16Array(SAMPLES_PER_FRAME);
  private readonly loop: Int16Array;
  private loopFrame = 0;
  private timer: NodeJS.Timeout | undefined;
  private clockStart = 0;
  private framesSent = 0;

  constructor(streamIndex: number) {
    // Each aircraft hums at its own pitch.
    this.loop = droneLoop(85 + streamIndex * 12);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** One more viewer listens; the sound runs while anyone does. */
  listen(listener: object): void {
    this.listeners.add(listener);
    if (!this.timer) {
      this.clockStart = performance.now();
      this.framesSent = 0;
      this.tick();
    }
  }

  release(listener: object): void {
    if (this.listeners.delete(listener) && this.listeners.size === 0) this.stop();
  }

  /** Silence until the next listener. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  /** Ends the track for good (process shutdown). */
  close(): void {
    this.stop();
    this.track.stop();
  }

  private tick = (): void => {
    const now = performance.now();
    let due = Math.floor((now - this.clockStart) / FRAME_MS) + 1;
    if (due - this.framesSent > MAX_CATCH_UP_FRAMES) this.framesSent = due - 1; // stalled: skip
    for (; this.framesSent < due; this.framesSent += 1) this.sendFrame();
    due = this.framesSent;
    this.timer = setTimeout(this.tick, Math.max(0, this.clockStart + due * FRAME_MS - now));
  };

  private sendFrame(): void {
    const frames = this.loop.length / SAMPLES_PER_FRAME;
    const start = this.loopFrame * SAMPLES_PER_FRAME;
    this.samples.set(this.loop.subarray(start, start + SAMPLES_PER_FRAME));
    this.loopFrame = (this.loopFrame + 1) % frames;
    this.source.onData({ samples: this.samples, sampleRate: SAMPLE_RATE, channelCount: 1 });
  }
}

/**
 * One seamless loop of the drone at about `baseHz`: the phase runs over PHASE_PERIOD in a whole
 * number of 10 ms frames (the pitch moves by under 0.3 % to fit), so the loop's end meets its start.
 */
export function droneLoop(baseHz: number): Int16Array {
  const frames = Math.round(
    (PHASE_PERIOD * SAMPLE_RATE) / (2 * Math.PI * baseHz) / SAMPLES_PER_FRAME,
  );
  const length = frames * SAMPLES_PER_FRAME;
  const step = PHASE_PERIOD / length;
  const loop = new Int16Array(length);
  let noise = 12345;
  for (let index = 0; index < length; index += 1) {
    const phase = (index + 1) * step;
    noise = (noise * 1103515245 + 12345) & 0x7fffffff;
    const beat = 0.75 + 0.25 * Math.sin(phase / 97);
    const value =
      Math.sin(phase) * 0.6 * beat +
      Math.sin(phase * 1.5) * 0.25 +
      ((noise / 0x7fffffff) * 2 - 1) * 0.05;
    loop[index] = Math.round(value * 2500); // quiet: about -20 dBFS
  }
  return loop;
}
