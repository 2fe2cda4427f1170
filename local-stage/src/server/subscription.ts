/**
 * One viewer's subscription to one camera: a send-only RTCPeerConnection fed by the viewer's
 * own RTCVideoSource. The stage offers (it knows what it sends), the viewer answers, and both
 * trickle ICE candidates over the events socket.
 */
import type { CabinAudio } from './cabin-audio';
import type { Camera } from './camera';
import type { IceCandidateMessage, StageMessage } from '../signalling';
import {
  RTCPeerConnection,
  RTCVideoSource,
  type NodeMediaStreamTrack,
  type NodePeerConnection,
  type NodeVideoSource,
} from './wrtc';

const ANSWER_TIMEOUT_MS = 15_000;
const DISCONNECTED_GRACE_MS = 5_000;

export interface SubscriptionOptions {
  id: string;
  camera: Camera;
  audio: CabinAudio;
  /** What the viewer gets (already limited to what the publisher sends). */
  media: { audio: boolean; video: boolean };
  publisherId: string;
  send: (message: StageMessage) => void;
  onClosed: (subscription: Subscription) => void;
}

export class Subscription {
  readonly id: string;
  readonly publisherId: string;
  private readonly camera: Camera;
  private readonly audio: CabinAudio;
  private readonly media: { audio: boolean; video: boolean };
  private audioTrack: NodeMediaStreamTrack | undefined;
  private readonly send: (message: StageMessage) => void;
  private readonly onClosed: (subscription: Subscription) => void;
  private readonly peer: NodePeerConnection;
  private readonly source: NodeVideoSource;
  private readonly track: NodeMediaStreamTrack;
  private closed = false;
  /** Native peer-connection calls under way: closing the peer under one can crash libwebrtc. */
  private nativeCallsInFlight = 0;
  private closePeerWhenSettled = false;
  private primed = false;
  private pendingCandidates: StageMessage[] | undefined = [];
  private answerTimer: NodeJS.Timeout | undefined;
  private disconnectedTimer: NodeJS.Timeout | undefined;
  /** When the subscription was asked for, and when its connection came up (performance.now). */
  readonly requestedAt = performance.now();
  connectedAt: number | undefined;

  constructor(options: SubscriptionOptions) {
    this.id = options.id;
    this.publisherId = options.publisherId;
    this.camera = options.camera;
    this.audio = options.audio;
    this.media = options.media;
    this.send = options.send;
    this.onClosed = options.onClosed;
    this.peer = new RTCPeerConnection({ iceServers: [] });
    this.source = new RTCVideoSource();
    this.track = this.source.createTrack();
    if (this.media.video) this.peer.addTransceiver(this.track, { direction: 'sendonly' });
    this.peer.onicecandidate = ({ candidate }) => {
      if (this.closed) return;
      const message: StageMessage = {
        type: 'candidate',
        subscriptionId: this.id,
        candidate: candidate
          ? {
              candidate: candidate.candidate,
              sdpMid: candidate.sdpMid,
              sdpMLineIndex: candidate.sdpMLineIndex,
            }
          : null,
      };
      // Candidates can be gathered before the offer is out; they must not overtake it.
      if (this.pendingCandidates) this.pendingCandidates.push(message);
      else this.send(message);
    };
    this.peer.onconnectionstatechange = () => this.onConnectionStateChange();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Starts the camera feed and sends the offer. False if the camera is off air. */
  async start(requestId: string): Promise<boolean> {
    if (this.media.video && this.camera.state === 'stopped') {
      this.close('camera-stopped', false);
      return false;
    }
    if (this.media.audio) {
      this.audioTrack = this.audio.createTrack();
      this.peer.addTransceiver(this.audioTrack, { direction: 'sendonly' });
    }
    const offer = await this.native(() => this.peer.createOffer());
    if (this.closed) return false;
    await this.native(() => this.peer.setLocalDescription(offer));
    if (this.closed) return false;
    this.send({
      type: 'offer',
      requestId,
      subscriptionId: this.id,
      participantId: this.publisherId,
      sdp: this.peer.localDescription?.sdp ?? offer.sdp,
    });
    for (const candidate of this.pendingCandidates ?? []) this.send(candidate);
    this.pendingCandidates = undefined;
    // After the offer is out: an idle camera draws its first frame now, while the viewer answers.
    if (this.media.video && !this.camera.attach(this.source)) {
      this.close('camera-stopped', true);
      return false;
    }
    this.answerTimer = setTimeout(() => this.close('answer-timeout', true), ANSWER_TIMEOUT_MS);
    return true;
  }

  async answer(sdp: string): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.answerTimer);
    await this.native(() => this.peer.setRemoteDescription({ type: 'answer', sdp }));
  }

  async addCandidate(candidate: IceCandidateMessage | null): Promise<void> {
    if (this.closed || candidate === null || candidate.candidate === '') return;
    // A browser's mDNS (.local) host candidate may not resolve here; the browser's connectivity
    // checks still reach the stage's own candidates, which is enough on one machine.
    await this.native(() => this.peer.addIceCandidate(candidate)).catch(() => undefined);
  }

  /**
   * Ends the subscription and releases the peer connection. `notify` tells the viewer (when the
   * stage ends it; not when the viewer asked or its socket is gone).
   */
  close(reason: string, notify: boolean): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.answerTimer);
    clearTimeout(this.disconnectedTimer);
    this.camera.detach(this.source);
    if (this.audioTrack) this.audio.release(this.audioTrack);
    this.peer.onicecandidate = null;
    this.peer.onconnectionstatechange = null;
    this.track.stop();
    if (this.nativeCallsInFlight > 0) this.closePeerWhenSettled = true;
    else this.peer.close();
    if (notify) this.send({ type: 'subscriptionEnded', subscriptionId: this.id, reason });
    this.onClosed(this);
  }

  /** Runs a native call; a close asked for meanwhile happens once every such call has settled. */
  private async native<T>(call: () => Promise<T>): Promise<T> {
    this.nativeCallsInFlight += 1;
    try {
      return await call();
    } finally {
      this.nativeCallsInFlight -= 1;
      if (this.nativeCallsInFlight === 0 && this.closePeerWhenSettled) {
        this.closePeerWhenSettled = false;
        this.peer.close();
      }
    }
  }

  private onConnectionStateChange(): void {
    if (this.closed) return;
    const state = this.peer.connectionState;
    if (state === 'connected') {
      clearTimeout(this.disconnectedTimer);
      this.disconnectedTimer = undefined;
      if (!this.primed) {
        this.primed = true;
        this.connectedAt = performance.now();
        if (this.media.video) this.camera.prime(this.source);
      }
    } else if (state === 'failed') {
      this.close('connection-failed', true);
    } else if (state === 'disconnected' && !this.disconnectedTimer) {
      this.disconnectedTimer = setTimeout(
        () => this.close('connection-lost', true),
        DISCONNECTED_GRACE_MS,
      );
    }
  }
}
