import { describe, expect, it } from 'vitest';
import {
  announcedHostAddresses,
  interfaceOf,
  unreachableBeyondWarning,
  type Interfaces,
} from './stage-network';

const info = (address: string, internal = false) => ({
  address,
  netmask: address.includes(':') ? 'ffff:ffff:ffff:ffff::' : '255.255.255.0',
  family: address.includes(':') ? ('IPv6' as const) : ('IPv4' as const),
  mac: '02:00:00:00:00:01',
  internal,
  cidr: null,
  scopeid: 0,
});

// A lab namespace's stage: loopback, a veth link with IPv4, IPv6 and an IPv6 link-local address.
const interfaces: Interfaces = {
  lo: [info('127.0.0.1', true), info('::1', true)],
  'veth-stage': [info('198.18.0.2'), info('2001:2::2'), info('fe80::1')],
};

const settings = (announced: string[], announceInterfaces = true) => ({
  announced,
  announceInterfaces,
  udpPorts: undefined,
});

describe('the addresses the stage announces', () => {
  it('announces every interface address but loopback and link-local, IPv6 too, veth included', async () => {
    expect(
      (await announcedHostAddresses(settings([]), { interfaces })).map((entry) => entry.address),
    ).toEqual(['198.18.0.2', '2001:2::2']);
  });

  it('puts the configured addresses first, names resolved, and says which are on an interface', async () => {
    const lookup = async () => ['203.0.113.7'];
    expect(
      await announcedHostAddresses(settings(['stage.example.com', '198.18.0.2']), {
        interfaces,
        lookup,
      }),
    ).toEqual([
      { address: '203.0.113.7', source: 'stage.example.com', interfaceName: undefined },
      { address: '198.18.0.2', source: '198.18.0.2', interfaceName: 'veth-stage' },
      { address: '2001:2::2', source: 'veth-stage', interfaceName: 'veth-stage' },
    ]);
  });

  it('announces loopback when the host has nothing else, and 127.0.0.2 is loopback’s too', async () => {
    const loopbackOnly: Interfaces = { lo: [info('127.0.0.1', true)] };
    expect(await announcedHostAddresses(settings([]), { interfaces: loopbackOnly })).toEqual([
      { address: '127.0.0.1', source: 'loopback only', interfaceName: 'lo' },
    ]);
    expect(interfaceOf('127.0.0.2', loopbackOnly)).toBe('lo');
    expect(interfaceOf('198.18.0.10', interfaces)).toBeUndefined();
  });

  it('warns, naming the setting, when only private addresses are announced and none is configured', async () => {
    const office: Interfaces = { eth0: [info('10.0.0.5'), info('fd00::5')] };
    const addresses = await announcedHostAddresses(settings([]), { interfaces: office });
    expect(unreachableBeyondWarning(settings([]), addresses)).toContain(
      'set STAGE_ANNOUNCED_ADDRESSES to the public address or name',
    );
    const lab = await announcedHostAddresses(settings([]), { interfaces });
    expect(unreachableBeyondWarning(settings([]), lab)).toBeUndefined();
  });
});
