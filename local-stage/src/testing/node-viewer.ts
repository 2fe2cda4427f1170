/**
 * A viewer in Node for tests and benchmarks: speaks the stage's signalling protocol over a real
 * WebSocket, answers the stage's offer with a wrtc RTCPeerConnection and reads each received
 * frame's time strip from its luma plane.
 */
import WebSocket from 'ws';
import { iceCandidateMessage, type ParticipantDescription, type StageMessage } from '../signalling';
import { parseStageMessage } from '../sdk/messages';
import { decodeTimeStripFromI420, type TimeStripPayload } from '../time-strip';
import {
  RTCPeerConnection,
  RTCVideoSink,
  type NodePeerConnection,
  type NodeVideoSink,
} from '../cameras/wrtc';

export interface ReceivedFrame {
  width: number;
  height: number;
  strip: TimeStripPayload | null;
  /** Date.now() when the frame was delivered. */
  receivedAtMs: number;
}

/** An ICE candidate line's address and port (the port replaced by the discard port, 9). */
const CANDIDATE_PORT = /^(a=candidate:\S+ \d+ udp \d+ \S+) \d+ /gim;

export class NodeViewer {
  readonly messages: StageMessage[] = [];
  readonly frames: ReceivedFrame[] = [];
  /** The kinds of the tracks received, in order. */
  readonly trackKinds: string[] = [];
  private socket: WebSocket | undefined;
  private peer: NodePeerConnection | undefined;
  private sink: NodeVideoSink | undefined;
  private subscriptionId: string | undefined;
  private closedWith: { code: number; reason: string } | undefined;
  private readonly waiters = new Set<() => void>();
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly eventsUrl: string,
    /** Edits the answer the stage is sent (tests of a broken peer). */
    private readonly editAnswer: (sdp: string) => string = (sdp) => sdp,
    /**
     * 'unreachable': none of its packets reach the stage, as behind a firewall that drops UDP or
     * towards an address announced wrongly: the offer's candidates are taken to a closed port, and
     * its own candidates are not sent.
     */
    private readonly network: 'reachable' | 'unreachable' = 'reachable',
  ) {}

  /** Opens the socket and sends `join`; resolves with the stage's first answer. */
  async join(token: string): Promise<StageMessage> {
    const socket = new WebSocket(this.eventsUrl);
    this.socket = socket;
    socket.on('message', (data) => {
      const message = parseStageMessage(data.toString());
      if (!message) return;
      this.messages.push(message);
      // One message at a time: a candidate must wait until the offer has been applied.
      this.handling = this.handling.then(() => this.onMessage(message)).catch(() => undefined);
      this.notify();
    });
    socket.on('close', (code, reason) => {
      this.closedWith = { code, reason: reason.toString() };
      this.notify();
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'join', token }));
    return this.waitForMessage((message) => message.type === 'joined' || message.type === 'error');
  }

  /** Subscribes to the stage's first publisher (video); resolves with the offer message. */
  async subscribe(
    publisher?: ParticipantDescription,
    media: { audio: boolean; video: boolean } = { audio: false, video: true },
  ): Promise<void> {
    const joined = this.messages.find((message) => message.type === 'joined');
    const target = publisher ?? (joined?.type === 'joined' ? joined.participants[0] : undefined);
    if (!target) throw new Error('no publisher to subscribe to');
    this.send({
      type: 'subscribe',
      requestId: `r-${this.messages.length}`,
      participantId: target.id,
      media,
    });
    await this.waitForMessage((message) => message.type === 'offer' || message.type === 'error');
  }

  get closed(): { code: number; reason: string } | undefined {
    return this.closedWith;
  }

  get peerState(): string | undefined {
    return this.peer?.connectionState;
  }

  /** The answer sent to the stage (undefined before the offer came). */
  get answerSdp(): string | undefined {
    return this.peer?.localDescription?.sdp;
  }

  /** The peer connection's stats objects, unparsed (empty before the offer came). */
  async stats(): Promise<unknown[]> {
    return this.peer ? [...(await this.peer.getStats()).values()] : [];
  }

  send(message: unknown): void {
    this.socket?.send(JSON.stringify(message));
  }

  /** Waits (bounded) until `predicate` holds; re-checked on every message, frame or close. */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  async waitForMessage(
    predicate: (message: StageMessage) => boolean,
    timeoutMs = 10_000,
  ): Promise<StageMessage> {
    await this.waitFor(() => this.messages.some(predicate), 'a stage message', timeoutMs);
    const found = this.messages.find(predicate);
    if (!found) throw new Error('unreachable');
    return found;
  }

  /** Closes the peer connection and the socket, as a leaving browser does. */
  close(): void {
    this.sink?.stop();
    this.sink = undefined;
    this.peer?.close();
    this.socket?.close(1000, 'bye');
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private async onMessage(message: StageMessage): Promise<void> {
    if (message.type === 'offer') {
      this.subscriptionId = message.subscriptionId;
      const peer = new RTCPeerConnection({ iceServers: [] });
      this.peer = peer;
      peer.onconnectionstatechange = () => this.notify();
      peer.onicecandidate = ({ candidate }) => {
        if (this.network === 'unreachable') return;
        this.send({
          type: 'candidate',
          subscriptionId: message.subscriptionId,
          candidate: iceCandidateMessage(candidate),
        });
      };
      peer.ontrack = ({ track }) => {
        this.trackKinds.push(track.kind);
        this.notify();
        if (track.kind !== 'video') return;
        const sink = new RTCVideoSink(track);
        this.sink = sink;
        sink.onframe = ({ frame }) => {
          this.frames.push({
            width: frame.width,
            height: frame.height,
            strip: decodeTimeStripFromI420(frame),
            receivedAtMs: Date.now(),
          });
          if (this.frames.length > 600) this.frames.splice(0, 300);
          this.notify();
        };
      };
      const offer =
        this.network === 'unreachable' ? message.sdp.replace(CANDIDATE_PORT, '$1 9 ') : message.sdp;
      await peer.setRemoteDescription({ type: 'offer', sdp: offer });
      const answer = await peer.createAnswer();
      await peer.setLocalDescription(answer);
      const answered = peer.localDescription?.sdp ?? answer.sdp;
      const sdp = this.editAnswer(
        this.network === 'unreachable' ? answered.replace(/^a=candidate:.*\r?\n/gm, '') : answered,
      );
      this.send({ type: 'answer', subscriptionId: message.subscriptionId, sdp });
    } else if (
      message.type === 'candidate' &&
      message.subscriptionId === this.subscriptionId &&
      this.network === 'reachable'
    ) {
      if (message.candidate)
        await this.peer?.addIceCandidate(message.candidate).catch(() => undefined);
    }
  }
}
