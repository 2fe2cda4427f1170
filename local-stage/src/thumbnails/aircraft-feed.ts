/**
 * One aircraft's video as the thumbnail process receives it: a WHEP player (werift, receive-only
 * video, VP8 or H.264 as the aircraft sends) on the stage's own port, with a SUBSCRIBE token of
 * the thumbnail process's `user_id`. It keeps the newest whole key frame and asks for one (a PLI,
 * as any player does) when the one it has is older than the caller wants.
 *
 * It watches only while `start()`ed: the stage counts it as a viewer, so a synthetic camera draws
 * while it watches and goes idle when it stops. A session that goes quiet (the stage ended it: its
 * publisher changed, or the stage restarted) or cannot start (nothing on air) is tried again.
 */
import type { RTCPeerConnection, RTCRtpTransceiver } from 'werift';
import { DecodableKeyFrames } from '../codecs/decodable-key-frames';
import type { EncodedKeyFrame } from '../codecs/decode-key-frame';
import { FrameAssembler } from '../codecs/rtp-frames';
import type { StageLogger } from '../stage-log';
import { deleteWhepSession, postWhepOffer, requestKeyFrame, whepPeer } from '../whep-client';

/** No packet for this long: the session is over; subscribe again. */
const QUIET_MS = 2_000;
/** Between attempts while nothing is on air or the stage cannot be reached. */
const RETRY_MS = 2_000;
const REQUEST_TIMEOUT_MS = 5_000;

export interface AircraftFeedOptions {
  /** http://host:port of the stage process. */
  stageUrl: string;
  stageId: string;
  /** A fresh SUBSCRIBE token for `stageId`. */
  issueToken: () => Promise<string>;
  log: StageLogger;
  /** The clock key frames are timed by, ms (Date.now by default; tests move it). */
  now?: () => number;
}

export interface ReceivedKeyFrame extends EncodedKeyFrame {
  /** The feed's `now()` when its last packet arrived. */
  receivedAtMs: number;
}

export class AircraftFeed {
  private running = false;
  private peer: RTCPeerConnection | undefined;
  private transceiver: RTCRtpTransceiver | undefined;
  /** The session's URL and the token of its POST, which its DELETE carries. */
  private session: { url: URL; token: string } | undefined;
  private lastPacketAtMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private newest: ReceivedKeyFrame | undefined;
  private readonly waiters = new Set<() => void>();
  /** Key frames received since start (stats). */
  keyFrames = 0;
  /** The stage's last answer was that nothing is on air on this aircraft (WHEP's 503). */
  offAir = false;

  protected readonly now: () => number;

  constructor(private readonly options: AircraftFeedOptions) {
    this.now = options.now ?? Date.now;
  }

  get watching(): boolean {
    return this.running;
  }

  get newestKeyFrame(): ReceivedKeyFrame | undefined {
    return this.newest;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.subscribe();
  }

  /** Ends the session (a DELETE, as a player leaving) and forgets the picture. */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.endSession();
  }

  /** Asks the publisher for a key frame now (a PLI), when the session has a track. */
  requestKeyFrame(): void {
    requestKeyFrame(this.transceiver);
  }

  /** The first key frame received after `afterMs` (`now()`), or undefined after `timeoutMs`. */
  async keyFrameAfter(afterMs: number, timeoutMs: number): Promise<ReceivedKeyFrame | undefined> {
    const deadline = this.now() + timeoutMs;
    while (!(this.newest && this.newest.receivedAtMs > afterMs) && this.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - this.now()));
        this.waiters.add(done);
      });
    }
    return this.newest && this.newest.receivedAtMs > afterMs ? this.newest : undefined;
  }

  private async subscribe(): Promise<void> {
    if (!this.running) return;
    try {
      await this.openSession();
      this.watchForQuiet();
    } catch (error) {
      this.endSession();
      this.options.log.debug(
        { err: error },
        `thumbnails: cannot watch ${this.options.stageId} now; trying again`,
      );
      this.later(RETRY_MS);
    }
  }

  private later(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.subscribe(), ms);
  }

  private watchForQuiet(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.running) return;
      if (this.now() - this.lastPacketAtMs < QUIET_MS) return this.watchForQuiet();
      this.endSession();
      void this.subscribe();
    }, QUIET_MS);
  }

  private async openSession(): Promise<void> {
    const { stageUrl, stageId } = this.options;
    const { peer, video: transceiver } = whepPeer({
      audio: false,
      h264Parameters: 'packetization-mode=1;profile-level-id=42e01f',
    });
    this.peer = peer;
    this.transceiver = transceiver;
    await peer.setLocalDescription(await peer.createOffer());
    const token = await this.options.issueToken();
    const {
      status,
      body: answer,
      location,
    } = await postWhepOffer({
      stageUrl,
      stageId,
      token,
      offer: peer.localDescription?.sdp ?? '',
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    this.offAir = status === 503 && answer.includes('Nothing is on air');
    if (status !== 201) {
      throw new Error(`WHEP answered ${status}: ${answer.slice(0, 200)}`);
    }
    const session = location ? { url: location, token } : undefined;
    if (peer !== this.peer) {
      // Stopped meanwhile: end the session the stage has just opened.
      if (session) void deleteWhepSession(session, REQUEST_TIMEOUT_MS);
      return;
    }
    this.session = session;
    // The stage ended the session (its publisher changed, or it is closing): watch again now.
    peer.connectionStateChange.subscribe((state) => {
      if (peer !== this.peer || !['closed', 'failed'].includes(state)) return;
      this.endSession();
      void this.subscribe();
    });
    // Only key frames are kept: a broken frame is dropped, and the next key frame serves.
    const codec = answeredCodec(answer);
    const keyFrames = new DecodableKeyFrames(codec);
    const assembler = new FrameAssembler(codec, 90_000, (frame) => {
      const keyFrame = keyFrames.take(frame);
      if (keyFrame) this.received({ ...keyFrame, receivedAtMs: this.lastPacketAtMs });
    });
    this.lastPacketAtMs = this.now();
    transceiver.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((packet) => {
        this.lastPacketAtMs = this.now();
        assembler.push(packet);
      }),
    );
    await peer.setRemoteDescription({ type: 'answer', sdp: answer });
  }

  private received(keyFrame: ReceivedKeyFrame): void {
    this.newest = keyFrame;
    this.keyFrames += 1;
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Ends the session; its key frame goes too (the next session may show another publisher). */
  private endSession(): void {
    this.newest = undefined;
    const peer = this.peer;
    const session = this.session;
    this.peer = undefined;
    this.transceiver = undefined;
    this.session = undefined;
    if (session) void deleteWhepSession(session, REQUEST_TIMEOUT_MS);
    if (peer) void peer.close().catch(() => undefined);
  }
}

/** The stage answers with the one codec the aircraft sends. */
function answeredCodec(answerSdp: string): 'vp8' | 'h264' {
  return /^a=rtpmap:\d+ H264\/90000/im.test(answerSdp) ? 'h264' : 'vp8';
}
