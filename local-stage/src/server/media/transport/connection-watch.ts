/**
 * What a publisher's and a subscription's peer connections do with their states: `connected`
 * reports (and ends a disconnection's grace), `failed` and `closed` end the session at once, and a
 * `disconnected` one gets a grace to connect again (a brief loss, a NAT rebinding) before it is
 * ended as lost.
 */
export class ConnectionWatch {
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      graceMs: number;
      connected(): void;
      /** `failed` or `closed`. */
      failed(state: 'failed' | 'closed'): void;
      /** Disconnected for the whole grace. */
      lost(): void;
      /** The grace began. */
      disconnected?(): void;
    },
  ) {}

  /** The peer connection's new `connectionState`. */
  stateChanged(state: string): void {
    if (state === 'connected') {
      this.stop();
      this.options.connected();
    } else if (state === 'failed' || state === 'closed') {
      this.options.failed(state);
    } else if (state === 'disconnected' && this.graceTimer === undefined) {
      this.options.disconnected?.();
      this.graceTimer = setTimeout(() => this.options.lost(), this.options.graceMs);
    }
  }

  /** No grace pending: the session connected again or ended. */
  stop(): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
  }
}
