/**
 * One subscription's peer connection (LiveKit's PCTransport, receive side only): answers the
 * stage's offer, trickles candidates both ways, reports its tracks and its state, and is torn
 * down in one place, after which it reports nothing. Which subscription it serves, and what its
 * reports mean for the app, is the session's.
 */
import { iceCandidateMessage, type IceCandidateMessage } from '../signalling';
import { readInBandMessages, type SeiMessage } from './in-band-receiver';
import { RemoteStageStream, type StageParticipantInfo } from './participant';

/** How long a `disconnected` peer may take to come back before it counts as lost. */
const DISCONNECTED_GRACE_MS = 1_000;

export interface SubscriptionPeerEvents {
  /** A candidate of ours for the stage; null when gathering is done. */
  candidate(candidate: IceCandidateMessage | null): void;
  /** The offer's tracks together once it is applied (as IVS announces them), later ones alone. */
  tracks(streams: RemoteStageStream[]): void;
  connected(): void;
  /** Failed, or disconnected for longer than the grace period. */
  lost(): void;
}

export class SubscriptionPeer {
  readonly streams: RemoteStageStream[] = [];
  private pending: RemoteStageStream[] | undefined = [];
  private lossTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Where the video's in-band messages go, once asked for (`readInBandMessages`). */
  private onInBandMessage: ((message: SeiMessage) => void) | undefined;
  private stopReading: (() => void) | undefined;

  constructor(
    private readonly peer: RTCPeerConnection,
    participant: StageParticipantInfo,
    private readonly events: SubscriptionPeerEvents,
  ) {
    peer.onicecandidate = ({ candidate }) => events.candidate(iceCandidateMessage(candidate));
    peer.ontrack = ({ track, receiver }) => {
      const onMessage = this.onInBandMessage;
      if (track.kind === 'video' && onMessage && !this.stopReading) {
        this.stopReading = readInBandMessages(receiver, (messages) => {
          if (!this.closed) for (const message of messages) onMessage(message);
        });
      }
      const stream = new RemoteStageStream(track, participant, peer);
      this.streams.push(stream);
      if (this.pending) this.pending.push(stream);
      else events.tracks([stream]);
    };
    peer.onconnectionstatechange = () => {
      const state = peer.connectionState;
      if (state === 'connected') {
        clearTimeout(this.lossTimer);
        this.lossTimer = undefined;
        events.connected();
      } else if (state === 'failed') {
        events.lost();
      } else if (state === 'disconnected' && !this.lossTimer) {
        this.lossTimer = setTimeout(() => events.lost(), DISCONNECTED_GRACE_MS);
      }
    };
  }

  /**
   * The answer to the stage's offer; undefined when the peer was closed meanwhile. The offer's
   * tracks wait for `announce()`, so that the app's work on them comes after the answer is sent.
   */
  async answer(offer: string): Promise<string | undefined> {
    const peer = this.peer;
    try {
      await peer.setRemoteDescription({ type: 'offer', sdp: offer });
      const answer = await peer.createAnswer();
      await peer.setLocalDescription(answer);
      return this.closed ? undefined : (peer.localDescription?.sdp ?? answer.sdp ?? '');
    } catch (error) {
      if (this.closed) return undefined;
      throw error;
    }
  }

  /** Whether its connection is up now. */
  get isConnected(): boolean {
    return !this.closed && this.peer.connectionState === 'connected';
  }

  /** From the video track on, each in-band message of its frames goes to `onMessage`. */
  readInBandMessages(onMessage: (message: SeiMessage) => void): void {
    this.onInBandMessage = onMessage;
  }

  /** Reports the offer's tracks, together (later ones are reported as they come). */
  announce(): void {
    const added = this.pending ?? [];
    this.pending = undefined;
    if (added.length > 0 && !this.closed) this.events.tracks(added);
  }

  /** A candidate of the stage's; one the peer refuses is dropped, as a browser would. */
  addCandidate(candidate: IceCandidateMessage): Promise<void> {
    return this.peer.addIceCandidate(candidate).catch(() => undefined);
  }

  /** Releases the listeners and the connection, once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.lossTimer);
    this.stopReading?.();
    const peer = this.peer;
    peer.onicecandidate = null;
    peer.ontrack = null;
    peer.onconnectionstatechange = null;
    peer.close();
  }
}
