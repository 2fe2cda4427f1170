/**
 * One browser's signalling socket, relayed to the local stage on a socket of its own. Messages
 * pass unchanged both ways; a close passes with its code and reason (1011 and STAGE_UNREACHABLE
 * only when the stage was never reached; a connection lost on one side is cut on the other).
 * The relay reads just one thing of what passes: the stage's `joined`, after which the socket's
 * seat is held for good and its join timer stops.
 */
import type { FastifyBaseLogger } from 'fastify';
import WebSocket, { type RawData } from 'ws';
import { z } from 'zod';
import type { Seat } from './socket-seats';

export const STAGE_UNREACHABLE = 'The local stage is not reachable; try again in a moment';

/** The stage's largest message is an SDP offer; this bounds a stage gone wrong, not a browser. */
const MAX_STAGE_MESSAGE_BYTES = 1024 * 1024;
const STAGE_CONNECT_TIMEOUT_MS = 10_000;
/** A browser that does not answer our close frame by then is cut (ws itself would wait 30 s). */
const CLOSE_GRACE_MS = 2_000;
/** An abnormal closure: received when a connection ends without a close frame, never sent. */
const CONNECTION_LOST = 1006;

const joinedMessage = z.object({ type: z.literal('joined') });

/** Whether a close code may be sent in a close frame (RFC 6455 §7.4, as ws checks it). */
function sendable(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code)) ||
    (code >= 3000 && code <= 4999)
  );
}

function isJoined(data: RawData, isBinary: boolean): boolean {
  if (isBinary || !Buffer.isBuffer(data)) return false;
  try {
    return joinedMessage.safeParse(JSON.parse(data.toString('utf8'))).success;
  } catch {
    return false;
  }
}

export interface StageRelayOptions {
  /** The browser's socket, just upgraded. */
  browser: WebSocket;
  /** ws://host:port/stage/events of the local stage. */
  stageEventsUrl: string;
  seat: Seat;
  /** A socket the stage has not admitted by then is closed. */
  joinTimeoutMs: number;
  log: FastifyBaseLogger;
  onClosed(relay: StageRelay): void;
}

export class StageRelay {
  private readonly browser: WebSocket;
  private readonly stage: WebSocket;
  private readonly seat: Seat;
  private readonly joinTimer: NodeJS.Timeout;
  private closeTimer: NodeJS.Timeout | undefined;
  private reached = false;
  /** A pong (or the upgrade) since the last ping. */
  private answering = true;

  constructor(private readonly options: StageRelayOptions) {
    const { browser, seat } = options;
    this.browser = browser;
    this.seat = seat;
    // Nothing is read from the browser until the stage can take it: no queue of our own.
    browser.pause();
    this.stage = new WebSocket(options.stageEventsUrl, {
      maxPayload: MAX_STAGE_MESSAGE_BYTES,
      handshakeTimeout: STAGE_CONNECT_TIMEOUT_MS,
      perMessageDeflate: false,
    });
    this.stage.on('open', () => {
      this.reached = true;
      browser.resume();
    });
    this.stage.on('message', (data, isBinary) => {
      if (!seat.joined && isJoined(data, isBinary)) {
        seat.joined = true;
        clearTimeout(this.joinTimer);
      }
      if (browser.readyState === WebSocket.OPEN) browser.send(data, { binary: isBinary });
    });
    this.stage.on('close', (code, reason) => this.stageClosed(code, reason.toString()));
    // A 'close' follows every error.
    this.stage.on('error', (error) => options.log.debug({ err: error }, 'stage socket error'));

    browser.on('message', (data, isBinary) => {
      if (this.stage.readyState === WebSocket.OPEN) this.stage.send(data, { binary: isBinary });
    });
    browser.on('pong', () => {
      this.answering = true;
    });
    browser.on('close', (code, reason) => this.browserClosed(code, reason.toString()));
    // ws has already sent its close frame (e.g. 1009 for a frame over the limit).
    browser.on('error', () => this.closeBrowser());
    this.joinTimer = setTimeout(() => this.end(1008, 'No join in time'), options.joinTimeoutMs);
  }

  /** Called every ping interval: a browser that has not answered the last ping is cut. */
  heartbeat(): void {
    if (!this.answering) {
      this.browser.terminate();
      return;
    }
    this.answering = false;
    if (this.browser.readyState === WebSocket.OPEN) this.browser.ping();
  }

  /** The edge ends the socket (no join in time, seat taken, shutting down), at once on the stage. */
  end(code: number, reason: string): void {
    this.closeBrowser(code, reason);
    if (this.stage.readyState === WebSocket.OPEN) this.stage.close(1000, reason);
    else this.stage.terminate();
  }

  private stageClosed(code: number, reason: string): void {
    if (!this.reached) this.closeBrowser(1011, STAGE_UNREACHABLE);
    else if (code === CONNECTION_LOST) this.browser.terminate();
    else this.closeBrowser(code, reason);
  }

  private browserClosed(code: number, reason: string): void {
    this.seat.release();
    clearTimeout(this.joinTimer);
    clearTimeout(this.closeTimer);
    const stage = this.stage;
    if (stage.readyState === WebSocket.CONNECTING || code === CONNECTION_LOST) stage.terminate();
    else if (stage.readyState === WebSocket.OPEN) {
      if (sendable(code)) stage.close(code, reason);
      else stage.close();
    }
    this.options.onClosed(this);
  }

  /** Sends a close frame (with the code when one may be sent), and cuts a browser that does not answer. */
  private closeBrowser(code?: number, reason?: string): void {
    const browser = this.browser;
    if (this.closeTimer !== undefined || browser.readyState === WebSocket.CLOSED) return;
    this.closeTimer = setTimeout(() => browser.terminate(), CLOSE_GRACE_MS);
    if (browser.readyState !== WebSocket.OPEN) return;
    // Its answer must be read (it was paused until the stage answered).
    browser.resume();
    if (code !== undefined && sendable(code)) browser.close(code, reason);
    else browser.close();
  }
}
