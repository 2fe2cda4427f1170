/**
 * A synthetic aircraft camera: draws the scene on a timer and hands each frame, as I420, to the
 * video source attached (its publisher's). It runs only while someone watches (and for a short
 * idle time after), so an idle camera process costs next to no CPU.
 *
 * The timer schedules each frame against a monotonic clock (frame n is due at start + n/fps),
 * so it does not drift; when the process falls behind by more than a few frames it skips them
 * rather than bursting to catch up.
 *
 * The camera feeds one RTCVideoSource, its WHIP publisher's (camera-publisher.ts,
 * docs/decisions/0054-cameras-publish-over-whip.md); `sendLatestFrame` hands the latest frame over
 * again at once when a new viewer needs a key frame, so it is encoded now rather than at the next
 * tick (docs/decisions/0022-key-frame-on-join.md).
 */
import { SceneRenderer } from './scene';
import type { I420Frame, NodeVideoSource } from './wrtc';

export type CameraState = 'idle' | 'live' | 'stopped';

export interface CameraOptions {
  streamId: string;
  streamIndex: number;
  width: number;
  height: number;
  fps: number;
  /** How long the camera keeps running after its last viewer leaves. */
  idleMs: number;
  /** Each frame's capture time (the time its strip shows), as it goes to the encoder. */
  onFrame?: (captureTimeMs: number) => void;
}

const MAX_LAG_FRAMES = 3;

export class Camera {
  readonly streamId: string;
  private readonly options: CameraOptions;
  private readonly scene: SceneRenderer;
  private readonly i420: Uint8Array;
  private readonly sources = new Set<NodeVideoSource>();
  private stateValue: CameraState = 'idle';
  private frameTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private clockStart = 0;
  private framesDueSinceStart = 0;
  private frameCount = 0;
  private hasFrame = false;
  private readonly drawTimes: number[] = [];
  /** The time the last frame's strip shows (epoch ms). */
  private lastStampMs = 0;

  constructor(options: CameraOptions) {
    this.options = options;
    this.streamId = options.streamId;
    this.scene = new SceneRenderer(options);
    this.i420 = new Uint8Array((options.width * options.height * 3) / 2);
  }

  get state(): CameraState {
    return this.stateValue;
  }

  get framesDrawn(): number {
    return this.frameCount;
  }

  /** Mean time to draw and convert one frame over the last 100 frames, in ms. */
  get meanFrameCostMs(): number {
    if (this.drawTimes.length === 0) return 0;
    return this.drawTimes.reduce((sum, time) => sum + time, 0) / this.drawTimes.length;
  }

  /** Draws one frame without sending it (warms fonts and code paths at start-up). */
  warmUp(): void {
    this.renderFrame();
  }

  /** Starts feeding `source`; starts the camera if it was idle. False when stopped. */
  attach(source: NodeVideoSource): boolean {
    if (this.stateValue === 'stopped') return false;
    this.sources.add(source);
    this.clearIdleTimer();
    if (this.stateValue === 'idle') this.startClock();
    return true;
  }

  detach(source: NodeVideoSource): void {
    if (!this.sources.delete(source)) return;
    if (this.sources.size === 0 && this.stateValue === 'live') this.scheduleIdle();
  }

  /** Hands the latest frame to `source` once more, now (a key frame was asked for). */
  sendLatestFrame(source: NodeVideoSource): void {
    if (!this.hasFrame || !this.sources.has(source)) return;
    // Its strip says now: the encoder stamps it now (a recording's seek and a glass-to-glass
    // reading go by the strip).
    this.scene.stamp(this.frameCount - 1, Date.now(), this.i420);
    source.onFrame(this.frame());
  }

  /** Fault injection: the camera goes off air; attached sources get no more frames. */
  stop(): void {
    this.stateValue = 'stopped';
    this.sources.clear();
    this.stopClock();
    this.clearIdleTimer();
  }

  /** Back on air after `stop()` (idle until someone watches). */
  restart(): void {
    if (this.stateValue !== 'stopped') return;
    this.stateValue = 'idle';
  }

  /** Releases timers; the camera is not used afterwards. */
  close(): void {
    this.stop();
  }

  private frame(): I420Frame {
    return { width: this.options.width, height: this.options.height, data: this.i420 };
  }

  private startClock(): void {
    this.stateValue = 'live';
    this.clockStart = performance.now();
    this.framesDueSinceStart = 0;
    this.tick();
  }

  private stopClock(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
  }

  private scheduleIdle(): void {
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.sources.size === 0 && this.stateValue === 'live') {
        this.stopClock();
        this.stateValue = 'idle';
      }
    }, this.options.idleMs);
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private tick = (): void => {
    this.frameTimer = undefined;
    if (this.stateValue !== 'live') return;
    this.renderFrame();
    const frame = this.frame();
    this.options.onFrame?.(this.lastStampMs);
    for (const source of this.sources) source.onFrame(frame);

    const interval = 1000 / this.options.fps;
    const now = performance.now();
    this.framesDueSinceStart += 1;
    let due = this.clockStart + this.framesDueSinceStart * interval;
    if (now - due > MAX_LAG_FRAMES * interval) {
      // Too far behind (a stalled event loop): skip the missed frames instead of bursting.
      this.framesDueSinceStart = Math.ceil((now - this.clockStart) / interval);
      due = this.clockStart + this.framesDueSinceStart * interval;
    }
    this.frameTimer = setTimeout(this.tick, Math.max(0, due - now));
  };

  private renderFrame(): void {
    const started = performance.now();
    this.scene.render(this.frameCount, Date.now(), this.i420);
    // The strip again, with the time it is handed over (wrtc stamps a frame when it gets it, and
    // drawing may take tens of ms on a loaded machine): the strip and the RTP timestamp agree.
    this.lastStampMs = Date.now();
    this.scene.stamp(this.frameCount, this.lastStampMs, this.i420);
    this.frameCount += 1;
    this.hasFrame = true;
    this.drawTimes.push(performance.now() - started);
    if (this.drawTimes.length > 100) this.drawTimes.shift();
  }
}
