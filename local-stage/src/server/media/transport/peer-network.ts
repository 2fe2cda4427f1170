/**
 * The addresses and UDP ports every peer connection of the stage announces (viewers' and WHEP
 * players' subscriptions, WHIP publishers), resolved once at start from STAGE_ANNOUNCED_ADDRESSES,
 * STAGE_ANNOUNCE_INTERFACES and STAGE_UDP_PORTS (docs/decisions/0062). Two ways:
 *
 * - A range (`40000-40099`), or none: the stage gives werift the exact list
 *   (`iceAdditionalHostAddresses`, its own interface gathering off); werift opens one UDP socket
 *   per address, bound to the wildcard address, and announces a host candidate for each with that
 *   socket's port. Each peer connection takes one port of the range per address announced.
 * - One port (`40000`): every peer connection shares it (udp-mux.ts); werift gathers nothing.
 *
 * Either way an address that is not on an interface (the public address of a 1:1 NAT) is reached
 * through the NAT on the port announced.
 */
import type { RTCPeerConnection } from 'werift';
import { isIPv4 } from 'node:net';
import { UdpMux } from './udp-mux';
import {
  UDP_PORTS,
  announcedHostAddresses,
  describeAnnounced,
  type AnnouncedHostAddress,
  type Interfaces,
  type Lookup,
  type StageNetworkSettings,
  type UdpPortRange,
} from '@tailcam/protocol/stage-network';

type PeerConfig = NonNullable<ConstructorParameters<typeof RTCPeerConnection>[0]>;

/** What a stage's peer connections are given (spread into werift's configuration). */
export type PeerNetworkConfig = Pick<
  PeerConfig,
  | 'iceUseIpv4'
  | 'iceUseIpv6'
  | 'iceAdditionalHostAddresses'
  | 'iceInterfaceAddresses'
  | 'icePortRange'
>;

/** What a peer connection of the stage is given, and joined to. */
export interface PeerNetworkPlan {
  /** Spread into its werift configuration. */
  config: PeerNetworkConfig;
  /**
   * Called once its transports exist and before setLocalDescription: puts them on the one
   * shared port (one-port mode); does nothing otherwise.
   */
  attach(peer: RTCPeerConnection): void;
}

export interface PeerNetwork extends PeerNetworkPlan {
  addresses: readonly AnnouncedHostAddress[];
  udpPorts: UdpPortRange | undefined;
  /** Binds the shared port (one-port mode); rejects when it is taken. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The peer connections a stage may hold at once: its viewer seats and its publishers. */
export function peerConnectionLimit(limits: {
  maxSessions: number;
  maxConnectingPublishers: number;
  aircraft: number;
}): number {
  // Each aircraft shows one connected publisher of each kind (camera, encoder); others connect.
  return limits.maxSessions + limits.maxConnectingPublishers + 2 * limits.aircraft;
}

/** The configuration of a peer connection announcing `addresses` on `udpPorts`. */
export function peerNetworkConfig(
  addresses: readonly AnnouncedHostAddress[],
  udpPorts: UdpPortRange | undefined,
): PeerNetworkConfig {
  const { udp4, udp6 } = boundAddresses(addresses);
  return {
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: addresses.map((entry) => entry.address),
    ...(udp4 !== undefined || udp6 !== undefined
      ? {
          iceInterfaceAddresses: {
            ...(udp4 === undefined ? {} : { udp4 }),
            ...(udp6 === undefined ? {} : { udp6 }),
          },
        }
      : {}),
    ...(udpPorts ? { icePortRange: [udpPorts.min, udpPorts.max] as [number, number] } : {}),
  };
}

/**
 * werift binds each socket to the wildcard address, and the kernel picks the source of what it
 * sends by route. A peer accepts a STUN response only from the address it asked, so a lone
 * address of this host in a family is bound: its answers come from it (127.0.0.2 on loopback).
 */
function boundAddresses(addresses: readonly AnnouncedHostAddress[]): {
  udp4?: string;
  udp6?: string;
} {
  const bound = (family: readonly AnnouncedHostAddress[]) =>
    family.length === 1 && family[0]!.interfaceName !== undefined ? family[0]!.address : undefined;
  const udp4 = bound(addresses.filter((entry) => isIPv4(entry.address)));
  const udp6 = bound(addresses.filter((entry) => !isIPv4(entry.address)));
  return { ...(udp4 === undefined ? {} : { udp4 }), ...(udp6 === undefined ? {} : { udp6 }) };
}

/**
 * Resolves the settings into what the stage announces. Throws a PeerNetworkError listing every
 * problem: a name that does not resolve, a port range too small for `peerConnections`.
 */
export async function resolvePeerNetwork(
  settings: StageNetworkSettings,
  options: {
    peerConnections: number;
    interfaces?: Interfaces;
    lookup?: Lookup;
  },
): Promise<PeerNetwork> {
  const problems: string[] = [];
  let addresses: AnnouncedHostAddress[] = [];
  try {
    addresses = await announcedHostAddresses(settings, options);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const ports = settings.udpPorts;
  if (ports && ports.min < ports.max && addresses.length > 0) {
    const size = ports.max - ports.min + 1;
    const needed = options.peerConnections * addresses.length;
    if (size < needed) {
      problems.push(
        `${UDP_PORTS} ${ports.min}-${ports.max} has ${size} ports, too few for the stage's limit: ${options.peerConnections} peer connections at once (STAGE_MAX_SESSIONS viewers and the publishers), ${addresses.length} port(s) each (one per address announced: ${addresses.map((entry) => entry.address).join(', ')}) need ${needed}; widen the range or lower STAGE_MAX_SESSIONS`,
      );
    }
  }
  if (problems.length > 0) throw new PeerNetworkError(problems);
  if (ports && ports.min === ports.max) {
    const mux = new UdpMux(
      ports.min,
      addresses.map((entry) => entry.address),
      boundAddresses(addresses),
    );
    return {
      addresses,
      udpPorts: ports,
      // werift gathers nothing of its own: the shared port's candidates are all.
      config: { iceUseIpv4: false, iceUseIpv6: false },
      attach: (peer) => mux.attach(peer),
      open: () => mux.open(),
      close: () => mux.close(),
    };
  }
  return {
    addresses,
    udpPorts: ports,
    config: peerNetworkConfig(addresses, ports),
    attach: () => undefined,
    open: async () => undefined,
    close: async () => undefined,
  };
}

export class PeerNetworkError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'PeerNetworkError';
  }
}

/**
 * Whether a local description announces any candidate. None: every port of STAGE_UDP_PORTS was
 * taken when werift looked (it then gathers nothing and says nothing).
 */
export function announcesCandidate(sdp: string | undefined): boolean {
  return /^a=candidate:/m.test(sdp ?? '');
}

export const NO_FREE_PORT = `no UDP port of ${UDP_PORTS} was free for a peer connection; it was ended (widen the range)`;

/** A peer connection got no port (NO_FREE_PORT): the stage is full, whatever its seats say. */
export class NoFreePortError extends Error {
  constructor() {
    super(NO_FREE_PORT);
    this.name = 'NoFreePortError';
  }
}

/** The interfaces' addresses on any port: a stage started without the variables (tests). */
export function interfacesPeerNetwork(): Promise<PeerNetwork> {
  return resolvePeerNetwork(
    { announced: [], announceInterfaces: true, udpPorts: undefined },
    { peerConnections: 0 },
  );
}

/** One line for the log: what the stage announces, and on which ports. */
export function describePeerNetwork(network: PeerNetwork): string {
  const range = network.udpPorts;
  const ports =
    range === undefined
      ? 'any UDP port (STAGE_UDP_PORTS unset)'
      : range.min === range.max
        ? `UDP ${range.min}, one port for every peer connection`
        : `UDP ${range.min}-${range.max}`;
  return `announces ${network.addresses.map(describeAnnounced).join(', ')} on ${ports}`;
}
