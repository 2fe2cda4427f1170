/**
 * `@roamhq/wrtc` with the few types the camera process (and the Node test viewer) use. The
 * package's own declarations re-export the DOM's WebRTC types, which do not exist in a Node
 * program, so the surface is described here once and the module is typed through it.
 */
import wrtcModule from '@roamhq/wrtc';

export interface SessionDescription {
  type: 'offer' | 'answer' | 'pranswer' | 'rollback';
  sdp: string;
}

export interface IceCandidateInit {
  candidate: string;
  sdpMid: string | null;
  sdpMLineIndex: number | null;
}

export interface NodeMediaStreamTrack {
  readonly id: string;
  readonly kind: string;
  stop(): void;
}

export interface NodeRtpSender {
  replaceTrack(track: NodeMediaStreamTrack | null): Promise<void>;
}

export interface NodeRtpTransceiver {
  readonly sender: NodeRtpSender;
  readonly mid: string | null;
  stop?: () => void;
}

export interface NodeTrackEvent {
  readonly track: NodeMediaStreamTrack;
}

export interface NodePeerConnection {
  readonly connectionState:
    'new' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';
  readonly iceGatheringState: 'new' | 'gathering' | 'complete';
  readonly localDescription: SessionDescription | null;
  onicecandidate: ((event: { candidate: IceCandidateInit | null }) => void) | null;
  onconnectionstatechange: (() => void) | null;
  onicegatheringstatechange: (() => void) | null;
  ontrack: ((event: NodeTrackEvent) => void) | null;
  addTransceiver(
    trackOrKind: NodeMediaStreamTrack | 'audio' | 'video',
    init?: {
      direction?: 'sendonly' | 'recvonly' | 'sendrecv' | 'inactive';
      /** Simulcast: one encoding per RTP stream id (libwebrtc offers a=simulcast and a=rid). */
      sendEncodings?: {
        rid: string;
        scaleResolutionDownBy?: number;
        maxBitrate?: number;
        maxFramerate?: number;
      }[];
    },
  ): NodeRtpTransceiver;
  createOffer(): Promise<SessionDescription>;
  createAnswer(): Promise<SessionDescription>;
  setLocalDescription(description: SessionDescription): Promise<void>;
  setRemoteDescription(description: SessionDescription): Promise<void>;
  addIceCandidate(candidate: IceCandidateInit): Promise<void>;
  /** The stats report (a map of stats objects, parsed by whoever reads them). */
  getStats(): Promise<{ values(): Iterable<unknown> }>;
  close(): void;
}

export interface I420Frame {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface NodeVideoSource {
  createTrack(): NodeMediaStreamTrack;
  onFrame(frame: I420Frame): void;
}

export interface NodeVideoSink {
  onframe: ((event: { frame: I420Frame }) => void) | null;
  stop(): void;
}

export interface NodeAudioSource {
  createTrack(): NodeMediaStreamTrack;
  onData(data: { samples: Int16Array; sampleRate: number; channelCount?: number }): void;
}

interface WrtcModule {
  RTCPeerConnection: new (configuration?: { iceServers?: unknown[] }) => NodePeerConnection;
  nonstandard: {
    RTCVideoSource: new (init?: { isScreencast?: boolean }) => NodeVideoSource;
    RTCVideoSink: new (track: NodeMediaStreamTrack) => NodeVideoSink;
    RTCAudioSource: new () => NodeAudioSource;
    rgbaToI420(rgba: I420Frame, i420: I420Frame): void;
  };
}

// The module object is typed once, here, against the interfaces above (see the file header).
const wrtc = wrtcModule as unknown as WrtcModule;

export const RTCPeerConnection = wrtc.RTCPeerConnection;
export const { RTCVideoSource, RTCVideoSink, RTCAudioSource, rgbaToI420 } = wrtc.nonstandard;
