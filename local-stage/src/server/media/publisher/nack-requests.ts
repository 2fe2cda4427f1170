/**
 * The stage's NACKs to a publisher: what it asks again of a lost video packet, and how often
 * (docs/decisions/0080-nacks-paced-by-the-retransmission.md).
 *
 * werift's receiver (receiver/nack.ts) asks for every lost packet every 5 ms, ten times, whatever
 * the link. A publisher resends on each NACK once its own round-trip estimate has passed, and our
 * cameras' estimate of a loopback link is about a millisecond: on a loaded machine, where a
 * retransmission takes 20–50 ms to come back, each lost packet was sent up to ten times more, and
 * libwebrtc paid for the resends out of its encoder's rate (decision 0079).
 *
 * Here a receiver keeps one state per SSRC (each simulcast encoding numbers its own packets) and:
 * - asks for a packet as soon as a later one shows it missing;
 * - asks again only after the time a retransmission has taken to come back on this link
 *   (smoothed, from packets that were asked for once: Karn's rule), and at most
 *   `MAX_REQUESTS_A_PACKET` times in all;
 * - forgets what is older than `MAX_MISSING` packets, and takes a jump of more than `MAX_GAP`
 *   numbers as a new start of the stream, not as loss.
 */
import {
  GenericNack,
  RtcpTransportLayerFeedback,
  type RTCRtpReceiver,
  type RtpPacket,
} from 'werift';
import { int16Difference } from '../../../codecs/sequence';

/** How long to wait before asking again while no retransmission has been timed (libwebrtc's default RTT). */
export const RETRY_UNTIMED_MS = 100;
/** The retry wait's floor and ceiling, whatever the retransmissions' timing says. */
export const RETRY_MIN_MS = 20;
export const RETRY_MAX_MS = 250;
/** The first request and its retries. */
export const MAX_REQUESTS_A_PACKET = 4;
/** Missing packets remembered per SSRC (werift's own: 5 frames of 30 packets). */
export const MAX_MISSING = 150;
/** A jump this far ahead is the stream starting anew (a new encoder), not thousands of losses. */
export const MAX_GAP = 1_000;

/**
 * Packets found missing (each once), NACK messages sent, packets asked for (a retry counts
 * again), asked ones that came, and ones given up on after `MAX_REQUESTS_A_PACKET` requests.
 */
export interface NackCounts {
  missing: number;
  nacks: number;
  packetsAsked: number;
  recovered: number;
  givenUp: number;
}

export const emptyNackCounts = (): NackCounts => ({
  missing: 0,
  nacks: 0,
  packetsAsked: 0,
  recovered: 0,
  givenUp: 0,
});

interface Missing {
  /** When it was last asked for. */
  askedAt: number;
  /** How many times it was asked for. */
  asked: number;
}

/** The sequence numbers of one SSRC: the newest seen, and the ones missing before it. */
class SsrcState {
  newest: number | undefined;
  readonly missing = new Map<number, Missing>();

  constructor(readonly ssrc: number) {}
}

export interface NackSender {
  (ssrc: number, lost: number[]): void;
}

/**
 * The NACK requests of one receiver: `addPacket` with every video packet (RTX already unwrapped
 * to its original numbers), `close` when the receiver ends.
 */
export class NackRequests {
  readonly counts = emptyNackCounts();
  private readonly states = new Map<number, SsrcState>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private smoothedMs: number | undefined;
  private closed = false;

  constructor(
    private readonly sendNack: NackSender,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How long before a packet is asked for again. */
  get retryMs(): number {
    if (this.smoothedMs === undefined) return RETRY_UNTIMED_MS;
    // Twice the smoothed time: a retransmission a little slower than usual is not asked again.
    return Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, 2 * this.smoothedMs));
  }

  /** Packets asked for and not (yet) come, all SSRCs. */
  get missingCount(): number {
    let count = 0;
    for (const state of this.states.values()) count += state.missing.size;
    return count;
  }

  addPacket(packet: RtpPacket): void {
    if (this.closed) return;
    const { ssrc, sequenceNumber: seq } = packet.header;
    let state = this.states.get(ssrc);
    if (!state) {
      state = new SsrcState(ssrc);
      this.states.set(ssrc, state);
    }
    const now = this.now();
    if (state.newest === undefined) {
      state.newest = seq;
      return;
    }
    const step = int16Difference(seq, state.newest);
    if (step <= 0) {
      // Late: a retransmission, or a packet reordered on the way.
      const missing = state.missing.get(seq);
      if (missing) {
        state.missing.delete(seq);
        this.counts.recovered += 1;
        if (missing.asked === 1) this.timeRetransmission(now - missing.askedAt);
      }
      return;
    }
    state.newest = seq;
    if (step > MAX_GAP) {
      state.missing.clear();
      return;
    }
    // The newest MAX_MISSING of the gap at most; older ones already missing make room for them.
    const lost: number[] = [];
    for (let gap = Math.min(step - 1, MAX_MISSING); gap > 0; gap -= 1) {
      lost.push((seq - gap) & 0xffff);
    }
    if (lost.length === 0) return;
    this.counts.missing += lost.length;
    for (const each of lost) state.missing.set(each, { askedAt: now, asked: 1 });
    this.forgetOldest(state);
    this.send(ssrc, lost);
    this.schedule(now + this.retryMs);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.states.clear();
  }

  private send(ssrc: number, lost: number[]): void {
    this.counts.nacks += 1;
    this.counts.packetsAsked += lost.length;
    this.sendNack(ssrc, lost);
  }

  private timeRetransmission(sampleMs: number): void {
    this.smoothedMs =
      this.smoothedMs === undefined ? sampleMs : this.smoothedMs + (sampleMs - this.smoothedMs) / 8;
  }

  private forgetOldest(state: SsrcState): void {
    // A Map keeps insertion order, which is sequence order here (numbers are added as they go missing).
    for (const seq of state.missing.keys()) {
      if (state.missing.size <= MAX_MISSING) break;
      state.missing.delete(seq);
    }
  }

  private schedule(at: number): void {
    if (this.closed || at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.retry(), Math.max(0, at - this.now()));
  }

  private retry(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    const retryMs = this.retryMs;
    let next = Infinity;
    for (const state of this.states.values()) {
      const lost: number[] = [];
      for (const [seq, missing] of state.missing) {
        const due = missing.askedAt + retryMs;
        if (due > now) {
          next = Math.min(next, due);
        } else if (missing.asked >= MAX_REQUESTS_A_PACKET) {
          state.missing.delete(seq);
          this.counts.givenUp += 1;
        } else {
          missing.asked += 1;
          missing.askedAt = now;
          lost.push(seq);
          next = Math.min(next, now + retryMs);
        }
      }
      if (lost.length > 0) this.send(state.ssrc, lost);
    }
    if (next !== Infinity) this.schedule(next);
  }
}

/** The part of werift's NackHandler (receiver/nack.ts, not exported) the receiver calls. */
interface WeriftNackState {
  readonly onPacketLost: { execute(nack: GenericNack): void };
  addPacket(packet: RtpPacket): void;
  close(): void;
}

/**
 * Gives `receiver` the stage's NACK requests in place of werift's own. The receiver's NACK
 * counts (`getStats`) still go up with each NACK sent.
 */
export function pacedNackRequests(receiver: RTCRtpReceiver): NackRequests {
  // werift declares the field private; the receiver calls it on every video packet (handleRTP).
  const held = receiver as unknown as { nack: WeriftNackState };
  const werift = held.nack;
  werift.close();
  const requests = new NackRequests((ssrc, lost) => {
    const nack = new GenericNack({ senderSsrc: receiver.rtcpSsrc, mediaSourceSsrc: ssrc, lost });
    receiver.dtlsTransport
      ?.sendRtcp([new RtcpTransportLayerFeedback({ feedback: nack })])
      .catch(() => undefined); // a transport closing meanwhile: nothing left to ask of
    werift.onPacketLost.execute(nack);
  });
  held.nack = {
    onPacketLost: werift.onPacketLost,
    addPacket: (packet) => requests.addPacket(packet),
    close: () => requests.close(),
  };
  return requests;
}
