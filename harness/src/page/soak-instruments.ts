/**
 * The soak's instruments inside a viewer's page, added before any page script
 * (`addInitScript`): every RTCPeerConnection and WebSocket the page makes is kept, and, once the
 * SDK has loaded, the Stage's listener sets are mirrored (on/off), so that the soak can count what
 * a leave leaves open. And how far each video has played, the same way in Chromium and Firefox:
 * Firefox counts no frames in `getVideoPlaybackQuality()` for a WebRTC video, so the frames a
 * video has presented are also counted with `requestVideoFrameCallback`.
 */

export interface InPageCounts {
  openPeerConnections: number;
  openSockets: number;
  stageListeners: number;
}

/** How far a video has played: it plays while both numbers grow. */
export interface Playback {
  /** Frames decoded (Chromium) or presented (Firefox) so far. */
  frames: number;
  /** The element's currentTime, in seconds. */
  time: number;
}

export interface SoakInstruments {
  /** The player's video (labelled 'Live video from …'), if the page shows one. */
  playback(): Playback | null;
  /** Frames of each of the page's videos so far, in document order. */
  framesPerVideo(): number[];
  /** Each open peer connection's connection and signalling state (a join that did not play). */
  peerStates(): string[];
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

  const presented = new WeakMap<HTMLVideoElement, number>();
  const frames = (video: HTMLVideoElement): number => {
    if (!presented.has(video)) {
      presented.set(video, 0);
      const count: VideoFrameRequestCallback = (_now, metadata) => {
        presented.set(video, metadata.presentedFrames);
        if (video.isConnected) video.requestVideoFrameCallback(count);
      };
      video.requestVideoFrameCallback(count);
    }
    return Math.max(video.getVideoPlaybackQuality().totalVideoFrames, presented.get(video) ?? 0);
  };

  let listeners: Map<object, Map<string, Set<unknown>>> | undefined;
  return {
    playback() {
      const video = [...document.querySelectorAll('video')].find((each) =>
        each.getAttribute('aria-label')?.startsWith('Live video from '),
      );
      return video ? { frames: frames(video), time: video.currentTime } : null;
    },
    framesPerVideo() {
      return [...document.querySelectorAll('video')].map(frames);
    },
    peerStates() {
      return peerConnections
        .filter((pc) => pc.signalingState !== 'closed')
        .map((pc) => `${pc.connectionState}/${pc.iceConnectionState}/${pc.signalingState}`);
    },
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
