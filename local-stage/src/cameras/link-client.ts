/**
 * The camera process's end of the camera link (../camera-link.ts): one WebSocket to the stage,
 * opened with a fresh link token each time, on which the stage says who watches which camera and
 * when a key frame is needed. It is opened again, with backoff, whenever it closes or cannot be
 * opened (the stage is starting, restarting, or not up yet).
 */
import { backoffPolicy } from '@tailcam/protocol/reconnect-policy';
import WebSocket from 'ws';
import {
  CAMERA_LINK_PATH,
  issueCameraLinkToken,
  parseCameraLinkMessage,
  type CameraLinkMessage,
} from '../camera-link';
import { silentLogger, type StageLogger } from '../stage-log';

/** After a failure: 100 ms, doubling to 2,000 ms (the repo's one backoff shape). */
const RETRY = backoffPolicy({ baseMs: 100, factor: 2, maxMs: 2_000 });
/** A stage that takes the TCP connection and never answers the upgrade is tried again. */
const OPEN_TIMEOUT_MS = 5_000;

export interface CameraLinkClientOptions {
  /** http://host:port of the stage process. */
  stageUrl: string;
  secret: Uint8Array;
  /** The link is open: the stage's messages follow (one demand per aircraft first). */
  onOpen: () => void;
  onMessage: (message: CameraLinkMessage) => void;
  /** The link that was open has closed (the stage ends the synthetic sessions when it does). */
  onClose: () => void;
  log?: StageLogger;
}

export class CameraLinkClient {
  private readonly options: CameraLinkClientOptions;
  private readonly url: string;
  private readonly log: StageLogger;
  private socket: WebSocket | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failuresInARow = 0;
  private opened = false;
  private closed = false;

  constructor(options: CameraLinkClientOptions) {
    this.options = options;
    this.log = options.log ?? silentLogger();
    const url = new URL(CAMERA_LINK_PATH, options.stageUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.url = url.toString();
  }

  /** The link is open now. */
  get connected(): boolean {
    return this.opened;
  }

  start(): void {
    if (!this.closed && !this.socket && !this.retryTimer) void this.connect();
  }

  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      socket.once('close', () => resolve());
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, 'camera process stopping');
    });
  }

  /** Sends a binary message to the stage while the link is open; false when it is not. */
  sendBinary(data: Buffer): boolean {
    const socket = this.socket;
    if (!socket || !this.opened || socket.readyState !== socket.OPEN) return false;
    socket.send(data, { binary: true });
    return true;
  }

  private async connect(): Promise<void> {
    const token = await issueCameraLinkToken(this.options.secret);
    if (this.closed) return;
    const socket = new WebSocket(this.url, {
      headers: { authorization: `Bearer ${token}` },
      handshakeTimeout: OPEN_TIMEOUT_MS,
      perMessageDeflate: false,
    });
    this.socket = socket;
    let refusal: string | undefined;
    socket.on('unexpected-response', (_request, response) => {
      refusal = `the stage answered ${response.statusCode}`;
      response.resume();
      socket.terminate();
    });
    socket.on('error', (error) => {
      refusal ??= error.message;
    });
    socket.on('open', () => {
      if (this.failuresInARow > 3) this.log.info('camera link to the stage open again');
      this.failuresInARow = 0;
      this.opened = true;
      this.options.onOpen();
    });
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const message = parseCameraLinkMessage(data.toString());
      if (message) this.options.onMessage(message);
      else this.log.warn('camera link: a message that is not one was ignored');
    });
    socket.on('close', (code) => {
      if (this.socket === socket) this.socket = undefined;
      const wasOpen = this.opened;
      this.opened = false;
      if (wasOpen) this.options.onClose();
      if (this.closed) return;
      this.failuresInARow = wasOpen ? 1 : this.failuresInARow + 1;
      const delay = RETRY.nextDelayMs(this.failuresInARow);
      if (wasOpen) this.log.warn(`camera link to the stage closed (${code}); opening it again`);
      else if (this.failuresInARow === 4 || this.failuresInARow % 30 === 0) {
        // The first few are the stage starting: not worth a line.
        this.log.warn(`camera link to ${this.url} not open yet: ${refusal ?? `closed ${code}`}`);
      }
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        if (!this.closed) void this.connect();
      }, delay);
    });
  }
}
