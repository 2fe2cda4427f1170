/**
 * The signalling socket (LiveKit's SignalClient, in small): a WebSocket to the stage's events
 * endpoint that sends `ClientMessage`s, hands on only the `StageMessage`s the guards in
 * ./messages.ts accept, and says when the stage's end closed it. Whoever holds it decides what
 * its messages mean: the join attempt first, then the session.
 */
import { CLOSE_CODES, type ClientMessage, type StageMessage } from '../signalling';
import { parseStageMessage } from './messages';

/**
 * How long a socket left while it connects may go on connecting before it is given up (closed
 * then, at the cost of the browser's page error): browsers open one socket to a host at a time,
 * and a next join to the same stage would wait behind it.
 */
export const LEFT_CONNECTING_MS = 5_000;

export class SignalSocket {
  onOpen = (): void => undefined;
  onMessage = (_message: StageMessage): void => undefined;
  /** The socket closed, or could not open; never after `close()`. */
  onClose = (): void => undefined;
  private readonly socket: WebSocket;

  /** Throws when the URL is not one a WebSocket can open. */
  constructor(
    url: string,
    private readonly leftConnectingMs = LEFT_CONNECTING_MS,
  ) {
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => this.onOpen();
    socket.onmessage = (event: MessageEvent) => {
      const message = typeof event.data === 'string' ? parseStageMessage(event.data) : null;
      if (message) this.onMessage(message);
    };
    socket.onclose = () => this.onClose();
    socket.onerror = () => {
      // A close event follows; nothing to do here.
    };
  }

  /** Sends while the socket is open; anything sent before or after is dropped. */
  send(message: ClientMessage): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /**
   * Closes it as a normal ending (the stage releases what hung off it); says nothing more. One
   * still connecting is closed once open: closed before, the browser reports a failed connection
   * as a page error (Firefox: "can't establish a connection", and "interrupted while the page was
   * loading"), which a join on standby left at a click must not cost (decision 0112).
   */
  close(reason: string): void {
    const socket = this.socket;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    if (socket.readyState === WebSocket.CONNECTING) {
      const giveUp = setTimeout(() => socket.close(), this.leftConnectingMs);
      socket.onopen = () => {
        clearTimeout(giveUp);
        socket.close(CLOSE_CODES.normal, reason);
      };
      socket.onerror = () => clearTimeout(giveUp);
    } else if (socket.readyState === WebSocket.OPEN) {
      socket.close(CLOSE_CODES.normal, reason);
    }
  }
}
