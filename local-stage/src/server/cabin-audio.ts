/**
 * The aircraft's cabin sound: a quiet engine drone (two low tones with a slow beat and a little
 * noise), sent only to viewers whose strategy asks for audio. One RTCAudioSource per aircraft,
 * fed 10 ms frames of 48 kHz mono while at least one viewer listens; scheduled against a
 * monotonic clock so it neither drifts nor bursts after a stall.
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
  private readonly listeners = new Set<NodeMediaStreamTrack>();
  private readonly samples = new Int16Array(SAMPLES_PER_FRAME);
  private readonly baseHz: number;
  private timer: NodeJS.Timeout | undefined;
  private clockStart = 0;
  private framesSent = 0;
  private phase = 0;
  private noise = 12345;

  constructor(streamIndex: number) {
    // Each aircraft hums at its own pitch.
    this.baseHz = 85 + streamIndex * 12;
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** A new track for one viewer; the sound runs while any such track is open. */
  createTrack(): NodeMediaStreamTrack {
    const track = this.source.createTrack();
    this.listeners.add(track);
    if (!this.timer) {
      this.clockStart = performance.now();
      this.framesSent = 0;
      this.tick();
    }
    return track;
  }

  release(track: NodeMediaStreamTrack): void {
    if (!this.listeners.delete(track)) return;
    track.stop();
    if (this.listeners.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const track of this.listeners) track.stop();
    this.listeners.clear();
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
    const step = (2 * Math.PI * this.baseHz) / SAMPLE_RATE;
    for (let index = 0; index < SAMPLES_PER_FRAME; index += 1) {
      this.phase += step;
      if (this.phase > PHASE_PERIOD) this.phase -= PHASE_PERIOD;
      this.noise = (this.noise * 1103515245 + 12345) & 0x7fffffff;
      const beat = 0.75 + 0.25 * Math.sin(this.phase / 97);
      const value =
        Math.sin(this.phase) * 0.6 * beat +
        Math.sin(this.phase * 1.5) * 0.25 +
        ((this.noise / 0x7fffffff) * 2 - 1) * 0.05;
      this.samples[index] = Math.round(value * 2500); // quiet: about -20 dBFS
    }
    this.source.onData({ samples: this.samples, sampleRate: SAMPLE_RATE, channelCount: 1 });
  }
}
