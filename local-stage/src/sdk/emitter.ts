/** A small typed event emitter with the `on` / `off` shape of the IVS SDK's TypedEmitter. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- listener maps take any args
type Listener = (...args: any[]) => void;

export class TypedEmitter<Events extends Record<string, Listener>> {
  private readonly listeners = new Map<keyof Events, Set<Listener>>();

  on<E extends keyof Events>(event: E, callback: Events[E]): void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(callback);
  }

  off<E extends keyof Events>(event: E, callback: Events[E]): void {
    this.listeners.get(event)?.delete(callback);
  }

  hasListenersFor<E extends keyof Events>(event: E): boolean {
    return (this.listeners.get(event)?.size ?? 0) > 0;
  }

  removeAllListeners(): void {
    this.listeners.clear();
  }

  /** Calls every listener; one that throws does not stop the others (nor the SDK). */
  protected emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(...args);
      } catch (error) {
        console.error(`[IVSBroadcastClient] a ${String(event)} listener threw`, error);
      }
    }
  }
}
