/**
 * Key frame requests to one publisher, as an SFU sends them: every viewer's PLI or FIR and every
 * join asks here, and the publisher gets one PLI for all who ask while a key frame is on its way
 * (that key frame answers all of them: each subscription forwards or holds it). After a key frame
 * has come, a new request is sent at once unless the last PLI is younger than `minIntervalMs`;
 * then it waits for that (deferred, not dropped: its viewer still needs a picture). A viewer
 * flooding PLIs so costs the encoder at most one key frame per `minIntervalMs`.
 */

export interface KeyFrameRequestOptions {
  /** Sends the PLI; false when there is nothing to send it to yet (no packet seen). */
  sendRequest: () => boolean;
  /** A PLI unanswered for this long is sent again (it or its key frame was lost). */
  pendingMs: number;
  /** The least time between two PLIs. */
  minIntervalMs: number;
  now?: () => number;
}

export class KeyFrameRequests {
  /** PLIs sent to the publisher. */
  sent = 0;
  private readonly options: KeyFrameRequestOptions;
  private readonly now: () => number;
  private lastSentAt: number | undefined;
  private awaitingKeyFrame = false;
  private deferred: NodeJS.Timeout | undefined;

  constructor(options: KeyFrameRequestOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
  }

  /** A viewer (or a join) wants a key frame. */
  request(): void {
    if (this.deferred) return;
    const lastSentAt = this.lastSentAt;
    if (lastSentAt !== undefined) {
      const since = this.now() - lastSentAt;
      if (this.awaitingKeyFrame && since < this.options.pendingMs) return;
      if (since < this.options.minIntervalMs) {
        this.deferred = setTimeout(() => {
          this.deferred = undefined;
          this.send();
        }, this.options.minIntervalMs - since);
        return;
      }
    }
    this.send();
  }

  /** A key frame came from the publisher: it answers every request made until now. */
  keyFrameArrived(): void {
    this.awaitingKeyFrame = false;
  }

  close(): void {
    clearTimeout(this.deferred);
    this.deferred = undefined;
  }

  private send(): void {
    if (!this.options.sendRequest()) return;
    this.sent += 1;
    this.lastSentAt = this.now();
    this.awaitingKeyFrame = true;
  }
}
