/**
 * Who holds the stage's signalling sockets at the API's edge: a cap per address and one in all.
 * When every seat is taken, a newcomer takes the seat of a socket that has not joined yet (the
 * oldest such socket of the address holding the most seats), so sockets opened without a token,
 * from however many addresses, cannot keep out a viewer who has one.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface SeatLimits {
  perAddress: number;
  total: number;
}

export type SeatRefusal = 'address-full' | 'full';

export class Seat {
  /** The stage admitted this socket's join: its seat is no longer up for grabs. */
  joined = false;

  constructor(
    readonly address: string,
    /** Called when a newcomer took this seat: the socket must go. */
    readonly onEvicted: () => void,
    private readonly seats: SocketSeats,
  ) {}

  /** Gives the seat back; idempotent. */
  release(): void {
    this.seats.release(this);
  }
}

export class SocketSeats {
  /** Every seat, oldest first (a Set keeps insertion order). */
  private readonly seats = new Set<Seat>();
  private readonly byAddress = new Map<string, Set<Seat>>();

  constructor(private readonly limits: SeatLimits) {}

  get size(): number {
    return this.seats.size;
  }

  /** A seat for a socket from `address`, or why there is none. */
  take(address: string, onEvicted: () => void): Seat | SeatRefusal {
    if ((this.byAddress.get(address)?.size ?? 0) >= this.limits.perAddress) return 'address-full';
    if (this.seats.size >= this.limits.total) {
      const evicted = this.evictable();
      if (evicted === undefined) return 'full';
      this.release(evicted);
      evicted.onEvicted();
    }
    const seat = new Seat(address, onEvicted, this);
    this.seats.add(seat);
    const own = this.byAddress.get(address) ?? new Set<Seat>();
    own.add(seat);
    this.byAddress.set(address, own);
    return seat;
  }

  release(seat: Seat): void {
    if (!this.seats.delete(seat)) return;
    const own = this.byAddress.get(seat.address);
    own?.delete(seat);
    if (own?.size === 0) this.byAddress.delete(seat.address);
  }

  /** The oldest seat not joined of the address that holds the most seats. */
  private evictable(): Seat | undefined {
    let chosen: Seat | undefined;
    let most = 0;
    for (const own of this.byAddress.values()) {
      if (own.size <= most) continue;
      for (const seat of own) {
        if (seat.joined) continue;
        chosen = seat;
        most = own.size;
        break;
      }
    }
    return chosen;
  }
}

/**
 * The address a socket is counted under: IPv4 as it is (also when IPv4-mapped), IPv6 by its /64,
 * the smallest block one subscriber is usually given (anyone holds the whole /64 of their link).
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(ip)) return ip;
  const address = ip.split('%', 1)[0] ?? ip;
  if (!isIPv6(address)) return ip;
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
