/**
 * The lab's namespaces, links and addresses (drawn in network-lab.ts's header): data only, so
 * tests and tools can name an address without building anything. Addresses only from the
 * benchmarking ranges, 198.18.0.0/15 and 2001:2::/48.
 */

export type Host = 'stage' | 'viewer' | 'publisher' | 'vm';
export type Router = 'inet' | 'nat' | 'cloud';
export type LabNamespace = Host | Router;
/** A link is named after the namespace at its far end from the router. */
export type LinkName = 'stage' | 'nat' | 'cloud' | 'viewer' | 'publisher' | 'vm';

export interface LinkPlan {
  router: Router;
  routerInterface: string;
  routerAddress: string;
  end: Exclude<LabNamespace, 'inet'>;
  endInterface: string;
  endAddress: string;
  /** IPv6 on the public links: [router side, far end]. */
  ipv6?: [string, string];
}

export const NAMESPACES: LabNamespace[] = [
  'inet',
  'nat',
  'cloud',
  'stage',
  'viewer',
  'publisher',
  'vm',
];

export const LINKS: Record<LinkName, LinkPlan> = {
  stage: link('inet', 'stage', '198.18.1', 'stage', 'eth0', '2001:2:0:1'),
  nat: link('inet', 'nat', '198.18.2', 'nat', 'wan', '2001:2:0:2'),
  cloud: link('inet', 'cloud', '198.18.3', 'cloud', 'wan', '2001:2:0:3'),
  viewer: link('nat', 'viewer', '198.19.1', 'viewer', 'eth0'),
  publisher: link('nat', 'publisher', '198.19.2', 'publisher', 'eth0'),
  vm: link('cloud', 'vm', '198.19.3', 'vm', 'eth0'),
};

function link(
  router: Router,
  routerInterface: string,
  subnet: string,
  end: LinkPlan['end'],
  endInterface: string,
  ipv6Prefix?: string,
): LinkPlan {
  return {
    router,
    routerInterface,
    routerAddress: `${subnet}.1`,
    end,
    endInterface,
    endAddress: `${subnet}.2`,
    ipv6: ipv6Prefix ? [`${ipv6Prefix}::1`, `${ipv6Prefix}::2`] : undefined,
  };
}

/** The lab's addresses, by what they are. */
export const LAB_ADDRESSES = {
  /** The stage on the public segment. */
  stage: LINKS.stage.endAddress,
  stageIpv6: LINKS.stage.ipv6![1],
  /** The NAT router's public address: what the stage sees of its viewers and publishers. */
  natPublic: LINKS.nat.endAddress,
  viewer: LINKS.viewer.endAddress,
  publisher: LINKS.publisher.endAddress,
  /** The cloud VM's public address, mapped one to one onto its private one. */
  vmPublic: LINKS.cloud.endAddress,
  vmPrivate: LINKS.vm.endAddress,
} as const;

/** Where a host is reached from elsewhere in the lab (its private address behind NAT). */
export const REACHED_AT: Record<Host, string> = {
  stage: LAB_ADDRESSES.stage,
  viewer: LAB_ADDRESSES.viewer,
  publisher: LAB_ADDRESSES.publisher,
  vm: LAB_ADDRESSES.vmPublic,
};
