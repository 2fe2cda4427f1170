/**
 * When the synthetic cameras sleep (docs/decisions/0074-cameras-sleep.md): after `sleepAfterMs`
 * with nobody watching anything on the stage (no socket session, no WHEP session, the thumbnail
 * process's included) and no sign of anyone about to (the API's presence call, a WHEP offer),
 * the camera process ends its WHIP sessions; anything that wants a picture wakes them at once.
 * `sleepAfterMs` 0: they never sleep.
 */

export interface CameraSleepOptions {
  /** 0: never sleep. */
  sleepAfterMs: number;
  /** The cameras fell asleep (true) or were woken (false). */
  onChange(asleep: boolean): void;
}

export class CameraSleep {
  private watchers = 0;
  private asleepValue = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: CameraSleepOptions) {
    this.arm();
  }

  get asleep(): boolean {
    return this.asleepValue;
  }

  /** How many sessions of any kind watch now: while any does, the cameras stay awake. */
  setWatchers(count: number): void {
    const before = this.watchers;
    this.watchers = count;
    if (count > 0) {
      this.disarm();
      this.setAsleep(false);
    } else if (before > 0) {
      this.arm();
    }
  }

  /** Someone wants a picture soon: the cameras wake, and the idle spell starts over. */
  wake(): void {
    this.setAsleep(false);
    if (this.watchers === 0) this.arm();
  }

  /** The cameras sleep now if nobody watches (fault injection); whether they sleep. */
  sleepNow(): boolean {
    if (this.watchers === 0) {
      this.disarm();
      this.setAsleep(true);
    }
    return this.asleepValue;
  }

  close(): void {
    this.closed = true;
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    if (this.options.sleepAfterMs <= 0 || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.watchers === 0) this.setAsleep(true);
    }, this.options.sleepAfterMs);
    // Never what keeps a process (or a test) alive.
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private setAsleep(asleep: boolean): void {
    if (asleep === this.asleepValue || this.closed) return;
    this.asleepValue = asleep;
    this.options.onChange(asleep);
  }
}
