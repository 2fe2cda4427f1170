/**
 * The soak's instruments inside a viewer's page, added before any page script
 * (`addInitScript`): every RTCPeerConnection and WebSocket the page makes is kept, and, once the
 * SDK has loaded, the Stage's listener sets are mirrored (on/off), so that the soak can count what
 * a leave leaves open.
 */

export interface InPageCounts {
  openPeerConnections: number;
  openSockets: number;
  stageListeners: number;
}

export interface SoakInstruments {
  /** Starts mirroring the SDK's Stage listeners (the SDK's script must have run). */
  watchStageListeners(): void;
  /** What is open now; forgets the closed ones, so the lists stay small over hundreds of joins. */
  counts(): InPageCounts;
}

declare global {
  interface Window {
    TailcamSoak: SoakInstruments;
    IVSBroadcastClient?: { Stage: { prototype: Record<string, unknown> } };
  }
}

function soakInstruments(): SoakInstruments {
  let peerConnections: RTCPeerConnection[] = [];
  let sockets: WebSocket[] = [];
  const NativePeerConnection = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeerConnection {
    constructor(...args: ConstructorParameters<typeof RTCPeerConnection>) {
      super(...args);
      peerConnections.push(this);
    }
  };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      sockets.push(this);
    }
  };

  let listeners: Map<object, Map<string, Set<unknown>>> | undefined;
  return {
    watchStageListeners() {
      const prototype = window.IVSBroadcastClient?.Stage.prototype;
      if (prototype === undefined || listeners !== undefined) return;
      const byStage = new Map<object, Map<string, Set<unknown>>>();
      listeners = byStage;
      const on = prototype.on as (this: object, event: string, callback: unknown) => void;
      const off = prototype.off as (this: object, event: string, callback: unknown) => void;
      prototype.on = function (this: object, event: string, callback: unknown) {
        let byEvent = byStage.get(this);
        if (byEvent === undefined) byStage.set(this, (byEvent = new Map()));
        let set = byEvent.get(event);
        if (set === undefined) byEvent.set(event, (set = new Set()));
        set.add(callback);
        on.call(this, event, callback);
      };
      prototype.off = function (this: object, event: string, callback: unknown) {
        byStage.get(this)?.get(event)?.delete(callback);
        off.call(this, event, callback);
      };
    },
    counts() {
      peerConnections = peerConnections.filter((pc) => pc.signalingState !== 'closed');
      sockets = sockets.filter((socket) => socket.readyState < WebSocket.CLOSING);
      let stageListeners = 0;
      for (const byEvent of listeners?.values() ?? []) {
        for (const set of byEvent.values()) stageListeners += set.size;
      }
      return {
        openPeerConnections: peerConnections.length,
        openSockets: sockets.length,
        stageListeners,
      };
    },
  };
}

window.TailcamSoak ??= soakInstruments();
