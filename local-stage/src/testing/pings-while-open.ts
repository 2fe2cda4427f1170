/**
 * The check the stage's and the API's socket doors share (decision 0078): their
 * pings run only while a socket is open. The caller fakes only `setInterval`/`clearInterval`
 * (`vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })`) before its server exists,
 * so that its sockets run for real and `vi.getTimerCount()` counts the door's intervals alone.
 */
import { expect, vi } from 'vitest';
import { waitUntilRealTime } from './wait-until';

/** A client socket of the door's, open, with the pings it has had. */
export interface PingedSocket {
  pings: { count: number };
}

export interface SocketDoor<T extends PingedSocket> {
  pingMs: number;
  /** Opens a socket (answering pings); resolves once the door holds it. */
  open(): Promise<T>;
  /** Closes it; resolves once the door has let it go. */
  close(socket: T): Promise<void>;
}

/**
 * No timer with no socket; one interval however many sockets, pinging each every `pingMs`; the
 * interval gone with the last socket and back, a whole interval long, with the next.
 */
export async function expectPingsOnlyWhileOpen<T extends PingedSocket>(
  door: SocketDoor<T>,
): Promise<void> {
  const { pingMs } = door;
  // Idle: nothing to wake for.
  expect(vi.getTimerCount()).toBe(0);

  const first = await door.open();
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(pingMs);
  await waitUntilRealTime(() => first.pings.count === 1, 'the first ping');

  // A second socket shares the one interval; both are pinged.
  const second = await door.open();
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(pingMs);
  await waitUntilRealTime(
    () => first.pings.count === 2 && second.pings.count === 1,
    'both sockets pinged',
  );

  // One of two closes: the other is still pinged.
  await door.close(first);
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(pingMs);
  await waitUntilRealTime(() => second.pings.count === 2, 'the open one pinged');

  // The last closes: no timer left.
  await door.close(second);
  expect(vi.getTimerCount()).toBe(0);
  vi.advanceTimersByTime(5 * pingMs);

  // A new socket after the idle spell is pinged again, a whole interval after it opened.
  const third = await door.open();
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(pingMs - 1);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(third.pings.count).toBe(0);
  vi.advanceTimersByTime(1);
  await waitUntilRealTime(() => third.pings.count === 1, 'the new socket pinged');
}

/**
 * A socket that does not answer pings is cut at the second one, and the interval goes with it.
 * `openSilent` opens one that never answers; `closed` resolves once the door has let it go.
 */
export async function expectSilentSocketCut(door: {
  pingMs: number;
  openSilent(): Promise<{ closed: Promise<unknown> }>;
}): Promise<void> {
  const silent = await door.openSilent();
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(door.pingMs); // pinged
  await new Promise((resolve) => setTimeout(resolve, 50));
  vi.advanceTimersByTime(door.pingMs); // no pong: cut
  let cut = false;
  void silent.closed.then(() => (cut = true));
  await waitUntilRealTime(() => cut, 'the silent socket to be cut');
  expect(vi.getTimerCount()).toBe(0);
}
