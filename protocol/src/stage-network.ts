/**
 * What the local stage announces to peers, and on which UDP ports (docs/decisions/0062): the
 * variables, read alike by the stage (which announces) and by `npm run doctor` (which says what
 * the stage will announce and whether each address is this host's), so the two cannot differ.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { z } from 'zod';

export const ANNOUNCED_ADDRESSES = 'STAGE_ANNOUNCED_ADDRESSES';
export const ANNOUNCE_INTERFACES = 'STAGE_ANNOUNCE_INTERFACES';
export const UDP_PORTS = 'STAGE_UDP_PORTS';

export interface UdpPortRange {
  min: number;
  max: number;
}

export interface StageNetworkSettings {
  /** IP addresses and DNS names announced besides (or instead of) the interfaces' addresses. */
  announced: readonly string[];
  /** Whether the host's own interface addresses are announced too. */
  announceInterfaces: boolean;
  /** The UDP ports peer connections use; undefined: any port the system gives. */
  udpPorts: UdpPortRange | undefined;
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** `STAGE_ANNOUNCED_ADDRESSES`: a comma list of IP addresses and DNS names, or empty. */
export function announcedAddresses(value: string | undefined): readonly string[] | string {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // A name's last label is never all digits: 300.1.2.3 is a mistyped address, not a name.
  const bad = entries.filter(
    (entry) => isIP(entry) === 0 && (!HOST_NAME.test(entry) || /(^|\.)\d+\.?$/.test(entry)),
  );
  if (bad.length > 0) {
    return `${ANNOUNCED_ADDRESSES} must be IP addresses or DNS names separated by commas (not: ${bad.join(', ')})`;
  }
  const unusable = entries.filter((entry) => isUnannounceable(entry));
  if (unusable.length > 0) {
    return `${ANNOUNCED_ADDRESSES} cannot announce an unspecified, multicast or link-local address (${unusable.join(', ')})`;
  }
  return [...new Set(entries)];
}

/**
 * `STAGE_UDP_PORTS`: one port (`40000`), which every peer connection shares, or a range
 * (`40000-40099`), a port of it for each peer connection and address announced.
 */
export function udpPortRange(value: string | undefined): UdpPortRange | undefined | string {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  const match = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(text);
  const min = Number(match?.[1]);
  const max = Number(match?.[2] ?? match?.[1]);
  if (!match || min < 1024 || max > 65535 || min > max) {
    return `${UDP_PORTS} must be one port (40000: every peer connection shares it) or a range (40000-40099: one port each), from 1024 to 65535 (got "${text}")`;
  }
  return { min, max };
}

const custom = <T>(parse: (value: string | undefined) => T | string) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      const parsed = parse(value);
      if (typeof parsed === 'string') {
        context.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    });

/** The variables' schemas, for a `z.object` of the stage's (or the doctor's) environment. */
export const stageNetworkVariables = {
  [ANNOUNCED_ADDRESSES]: custom(announcedAddresses),
  [ANNOUNCE_INTERFACES]: z
    .enum(['0', '1', 'true', 'false', ''], {
      error: `${ANNOUNCE_INTERFACES} must be 1 (or true) to announce the interfaces' addresses too, 0 (or false) to announce only ${ANNOUNCED_ADDRESSES}`,
    })
    .optional()
    .transform((value) => value !== '0' && value !== 'false'),
  [UDP_PORTS]: custom(udpPortRange),
};

type Parsed = z.output<z.ZodObject<typeof stageNetworkVariables>>;

export function stageNetworkSettings(value: Parsed): StageNetworkSettings {
  return {
    announced: value[ANNOUNCED_ADDRESSES],
    announceInterfaces: value[ANNOUNCE_INTERFACES],
    udpPorts: value[UDP_PORTS],
  };
}

/** The rules between the variables; a problem, or undefined. */
export function stageNetworkProblem(settings: StageNetworkSettings): string | undefined {
  if (!settings.announceInterfaces && settings.announced.length === 0) {
    return `${ANNOUNCE_INTERFACES}=0 needs ${ANNOUNCED_ADDRESSES}: otherwise the stage announces no address at all`;
  }
  return undefined;
}

function isUnannounceable(address: string): boolean {
  const lower = address.toLowerCase();
  if (isIP(lower) === 4) {
    const first = Number(lower.split('.')[0]);
    return lower === '0.0.0.0' || lower.startsWith('169.254.') || (first >= 224 && first <= 239);
  }
  if (isIP(lower) === 6) return lower === '::' || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
  return false;
}

export interface HostAddress {
  address: string;
  family: 4 | 6;
  /** The interface it is on. */
  interfaceName: string;
}

export type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/**
 * The host's addresses a peer can reach the stage on: every interface's, except loopback and
 * link-local ones. Unlike werift's own choice, veth and tun interfaces count: a network
 * namespace or a container may have nothing else.
 */
export function interfaceAddresses(interfaces: Interfaces = networkInterfaces()): HostAddress[] {
  const found: HostAddress[] = [];
  for (const [interfaceName, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || isUnannounceable(info.address)) continue;
      found.push({ address: info.address, family: info.family === 'IPv4' ? 4 : 6, interfaceName });
    }
  }
  return found;
}

/**
 * The interface `address` is on, if any. Every address of 127.0.0.0/8 is the loopback
 * interface's on Linux, though it lists only 127.0.0.1.
 */
export function interfaceOf(
  address: string,
  interfaces: Interfaces = networkInterfaces(),
): string | undefined {
  for (const [interfaceName, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (sameAddress(info.address, address)) return interfaceName;
      if (info.internal && info.family === 'IPv4' && address.startsWith('127.')) {
        return interfaceName;
      }
    }
  }
  return undefined;
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export type Lookup = (name: string) => Promise<readonly string[]>;

const systemLookup: Lookup = async (name) =>
  (await dnsLookup(name, { all: true })).map((entry) => entry.address);

export interface AnnouncedAddress {
  /** As configured: an IP address or a DNS name. */
  entry: string;
  /** The IP addresses it stands for (itself, or what the name resolved to). */
  addresses: readonly string[];
}

/**
 * Resolves the DNS names among `entries`. Throws an Error naming every name that did not
 * resolve (a stage that announced nothing for it could not be reached there).
 */
export async function resolveAnnounced(
  entries: readonly string[],
  lookup: Lookup = systemLookup,
): Promise<AnnouncedAddress[]> {
  const failed: string[] = [];
  const resolved = await Promise.all(
    entries.map(async (entry): Promise<AnnouncedAddress> => {
      if (isIP(entry) !== 0) return { entry, addresses: [entry] };
      try {
        const addresses = (await lookup(entry)).filter((address) => !isUnannounceable(address));
        if (addresses.length === 0) throw new Error('no usable address');
        return { entry, addresses: [...new Set(addresses)] };
      } catch (error) {
        failed.push(`${entry} (${error instanceof Error ? error.message : String(error)})`);
        return { entry, addresses: [] };
      }
    }),
  );
  if (failed.length > 0) {
    throw new Error(
      `${ANNOUNCED_ADDRESSES} names a host that does not resolve: ${failed.join(', ')}`,
    );
  }
  return resolved;
}

export interface AnnouncedHostAddress {
  address: string;
  /** Where it comes from: an interface's name, or the STAGE_ANNOUNCED_ADDRESSES entry. */
  source: string;
  /** The interface it is on; undefined for an address only a NAT in front maps to this host. */
  interfaceName: string | undefined;
}

/**
 * Every address the stage announces, in order: the configured ones (names resolved), then the
 * interfaces' when they are announced too; loopback's 127.0.0.1 when that leaves none (a host or
 * namespace with loopback only is reachable there, as STAGE_HOST's default is). Throws as
 * `resolveAnnounced` does.
 */
export async function announcedHostAddresses(
  settings: StageNetworkSettings,
  options: { interfaces?: Interfaces; lookup?: Lookup } = {},
): Promise<AnnouncedHostAddress[]> {
  const addresses: AnnouncedHostAddress[] = [];
  const add = (entry: AnnouncedHostAddress) => {
    if (!addresses.some((known) => sameAddress(known.address, entry.address))) {
      addresses.push(entry);
    }
  };
  for (const { entry, addresses: resolved } of await resolveAnnounced(
    settings.announced,
    options.lookup,
  )) {
    for (const address of resolved) {
      add({ address, source: entry, interfaceName: interfaceOf(address, options.interfaces) });
    }
  }
  if (settings.announceInterfaces) {
    for (const host of interfaceAddresses(options.interfaces)) {
      add({ address: host.address, source: host.interfaceName, interfaceName: host.interfaceName });
    }
  }
  if (addresses.length === 0) {
    add({
      address: '127.0.0.1',
      source: 'loopback only',
      interfaceName: interfaceOf('127.0.0.1', options.interfaces) ?? 'lo',
    });
  }
  return addresses;
}

/** One address as an operator reads it: where it comes from, and whether it is this host's. */
export function describeAnnounced(entry: AnnouncedHostAddress): string {
  const from =
    entry.source === entry.address || entry.source === entry.interfaceName
      ? ''
      : `${entry.source}, `;
  const where =
    entry.interfaceName === undefined
      ? 'not on an interface of this host: right only behind a 1:1 NAT that maps it here'
      : `on ${entry.interfaceName}`;
  return `${entry.address} (${from}${where})`;
}

/**
 * Private, shared or loopback addresses only, and nothing configured: a peer beyond this network
 * cannot reach the stage. What to set, or undefined.
 */
export function unreachableBeyondWarning(
  settings: StageNetworkSettings,
  addresses: readonly AnnouncedHostAddress[],
): string | undefined {
  if (settings.announced.length > 0) return undefined;
  if (!addresses.every((entry) => isPrivate(entry.address))) return undefined;
  return `the stage announces only private or loopback addresses (${addresses.map((entry) => entry.address).join(', ')}): peers beyond this network cannot reach it. Behind a 1:1 NAT (a cloud VM), set ${ANNOUNCED_ADDRESSES} to the public address or name`;
}

/** RFC 1918, shared (RFC 6598), loopback, unique-local: not reachable from the internet. */
function isPrivate(address: string): boolean {
  if (isIP(address) === 6) return address === '::1' || /^f[cd]/i.test(address);
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 10 ||
    a === 127 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}
