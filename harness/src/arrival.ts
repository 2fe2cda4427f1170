/**
 * A person's arrival on /home (decision 0112): the pointer moves on the page, and the app joins
 * every stream on standby, so that a click then only shows its stream. Each join is one
 * WebSocket to the stage: `countJoins` (an init script, for Playwright and puppeteer alike) counts
 * them, and `joinsOf` reads the count.
 */

/** Where the arriving pointer goes: from the page's top left part towards its middle. */
const ARRIVAL_PATH = [
  { x: 40, y: 60 },
  { x: 200, y: 160 },
] as const;

/** Playwright's and puppeteer's `page.mouse` alike. */
interface Mouse {
  move(x: number, y: number, options?: { steps?: number }): Promise<void>;
}

/** Moves the pointer across the page, away from every link, as a person's hand arrives. */
export async function arrive(mouse: Mouse): Promise<void> {
  const [from, to] = ARRIVAL_PATH;
  await mouse.move(from.x, from.y);
  await mouse.move(to.x, to.y, { steps: 4 });
}

export interface Joins {
  /** Joins the page made (WebSockets opened). */
  made: number;
  /** Joins still open. */
  open: number;
}

declare global {
  interface Window {
    tailcamJoins?: () => Joins;
  }
}

/** Run before the page's own scripts: counts every WebSocket the page opens. */
export function countJoins(): void {
  const sockets: WebSocket[] = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      sockets.push(this);
    }
  };
  window.tailcamJoins = () => ({
    made: sockets.length,
    open: sockets.filter((socket) => socket.readyState < WebSocket.CLOSING).length,
  });
}

/** In the page: its joins so far (none made when the script has not run). */
export function joinsOf(): Joins {
  return window.tailcamJoins?.() ?? { made: 0, open: 0 };
}
