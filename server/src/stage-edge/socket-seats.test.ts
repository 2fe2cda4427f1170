import { describe, expect, it } from 'vitest';
import { addressKey, Seat, SocketSeats } from './socket-seats';

function taken(result: Seat | string): Seat {
  if (typeof result === 'string') throw new Error(`no seat: ${result}`);
  return result;
}

describe('socket seats', () => {
  it('refuses a socket over the cap of its address, and gives the seat back when one closes', () => {
    const seats = new SocketSeats({ perAddress: 2, total: 10 });
    taken(seats.take('192.0.2.1', () => undefined));
    const second = taken(seats.take('192.0.2.1', () => undefined));
    expect(seats.take('192.0.2.1', () => undefined)).toBe('address-full');
    second.release();
    second.release();
    expect(seats.size).toBe(1);
    taken(seats.take('192.0.2.1', () => undefined));
  });

  it('when full, takes the oldest seat not joined of the address holding the most', () => {
    const seats = new SocketSeats({ perAddress: 3, total: 4 });
    const evicted: string[] = [];
    const take = (address: string, name: string) =>
      taken(seats.take(address, () => evicted.push(name)));
    take('192.0.2.1', 'a1');
    take('192.0.2.2', 'b1').joined = true;
    take('192.0.2.2', 'b2');
    take('192.0.2.2', 'b3');
    take('198.51.100.9', 'viewer');
    expect(evicted).toEqual(['b2']);
    expect(seats.size).toBe(4);
  });

  it('refuses a newcomer only when every seat has joined', () => {
    const seats = new SocketSeats({ perAddress: 2, total: 2 });
    taken(seats.take('192.0.2.1', () => undefined)).joined = true;
    taken(seats.take('192.0.2.2', () => undefined)).joined = true;
    expect(seats.take('192.0.2.3', () => undefined)).toBe('full');
  });
});

describe('the address a socket counts under', () => {
  it('is an IPv4 address as it is, also IPv4-mapped', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it("is an IPv6 address's /64, however it is written", () => {
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
