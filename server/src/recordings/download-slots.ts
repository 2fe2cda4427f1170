/**
 * How many recording downloads run at once, per account and in all (decision 0081): each holds a
 * remux worker, so past the bounds a download is refused with a 429 rather than queued.
 */
export interface DownloadLimits {
  /** `RECORDING_DOWNLOADS_PER_ACCOUNT`. */
  perAccount: number;
  /** `RECORDING_DOWNLOADS_MAX`. */
  total: number;
}

export type SlotVerdict =
  { granted: true; release: () => void } | { granted: false; reason: 'account' | 'total' };

export class DownloadSlots {
  private readonly byAccount = new Map<string, number>();
  private running = 0;

  constructor(private readonly limits: DownloadLimits) {}

  take(accountId: string): SlotVerdict {
    const mine = this.byAccount.get(accountId) ?? 0;
    if (mine >= this.limits.perAccount) return { granted: false, reason: 'account' };
    if (this.running >= this.limits.total) return { granted: false, reason: 'total' };
    this.byAccount.set(accountId, mine + 1);
    this.running += 1;
    let released = false;
    return {
      granted: true,
      release: () => {
        if (released) return;
        released = true;
        this.running -= 1;
        const left = (this.byAccount.get(accountId) ?? 1) - 1;
        if (left <= 0) this.byAccount.delete(accountId);
        else this.byAccount.set(accountId, left);
      },
    };
  }
}
