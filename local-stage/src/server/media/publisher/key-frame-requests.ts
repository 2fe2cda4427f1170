/**
 * Key frame requests to one publisher (one encoding: a simulcast publisher has one of these per
 * layer), as an SFU sends them. Every request is answered by the next key frame that arrives,
 * whoever asked for it (each subscription forwards or holds it), so the publisher gets one PLI for
 * all who ask while a key frame is on its way. Two kinds of request:
 * - `request()`: a viewer that has no picture yet (a join, its subscription's retries, a layer
 *   switch). Sent at once, unless the last PLI is younger than `minIntervalMs` (libwebrtc ignores
 *   a PLI sooner than 300 ms after the last); then it waits for that.
 * - `requestByViewer()`: a viewer's own PLI or FIR. Sent at most once per `viewerIntervalMs`
 *   after the last PLI, or after the last key frame when that came unasked (Janus's one a
 *   second): a crowd of viewers asking again and again (a receiver whose decoder gets nothing
 *   asks twice a second) costs the encoder one key frame a second, not three.
 * A request that must wait is deferred, not dropped (its viewer still needs a picture), and any
 * key frame that arrives meanwhile, asked for or not, answers it.
 */

export interface KeyFrameRequestOptions {
  /** Sends the PLI; false when there is nothing to send it to yet (no packet seen). */
  sendRequest: () => boolean;
  /** A PLI unanswered for this long is sent again (it or its key frame was lost). */
  pendingMs: number;
  /** The least time between two PLIs. */
  minIntervalMs: number;
  /** Viewers' own requests: one PLI at most this often (from the last PLI or unasked key frame). */
  viewerIntervalMs: number;
  now?: () => number;
}

export class KeyFrameRequests {
  /** PLIs sent to the publisher. */
  sent = 0;
  private readonly options: KeyFrameRequestOptions;
  private readonly now: () => number;
  private lastSentAt: number | undefined;
  /** When the last key frame that came unasked (no PLI pending) arrived. */
  private lastUnaskedKeyFrameAt: number | undefined;
  private awaitingKeyFrame = false;
  private deferred: { timer: NodeJS.Timeout; at: number } | undefined;

  constructor(options: KeyFrameRequestOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
  }

  /** A viewer without a picture (a join, a layer switch) wants a key frame: at once. */
  request(): void {
    this.ask(this.lastSentAt === undefined ? 0 : this.lastSentAt + this.options.minIntervalMs);
  }

  /** A viewer's own PLI or FIR: at most one key frame a `viewerIntervalMs` for all of them. */
  requestByViewer(): void {
    const last = Math.max(this.lastSentAt ?? -Infinity, this.lastUnaskedKeyFrameAt ?? -Infinity);
    this.ask(last === -Infinity ? 0 : last + this.options.viewerIntervalMs);
  }

  /** A key frame came from the publisher: it answers every request made until now. */
  keyFrameArrived(): void {
    if (!this.awaitingKeyFrame) this.lastUnaskedKeyFrameAt = this.now();
    this.awaitingKeyFrame = false;
    this.cancelDeferred();
  }

  close(): void {
    this.cancelDeferred();
  }

  /** Sends a PLI at `dueAt` (now, if that has passed), unless one already asked will answer. */
  private ask(dueAt: number): void {
    const now = this.now();
    const lastSentAt = this.lastSentAt;
    // The key frame on its way answers this request too.
    if (
      this.awaitingKeyFrame &&
      lastSentAt !== undefined &&
      now - lastSentAt < this.options.pendingMs
    )
      return;
    if (dueAt <= now) {
      this.send();
      return;
    }
    if (this.deferred && this.deferred.at <= dueAt) return;
    this.cancelDeferred();
    this.deferred = {
      at: dueAt,
      timer: setTimeout(() => {
        this.deferred = undefined;
        this.send();
      }, dueAt - now),
    };
  }

  private cancelDeferred(): void {
    clearTimeout(this.deferred?.timer);
    this.deferred = undefined;
  }

  private send(): void {
    if (!this.options.sendRequest()) return;
    this.cancelDeferred();
    this.sent += 1;
    this.lastSentAt = this.now();
    this.awaitingKeyFrame = true;
  }
}
