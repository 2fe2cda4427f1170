/**
 * What a lab link can be made to do, and the kernel settings that do it. Every condition acts on
 * the link's router side, on the forward path (and input, for traffic to the router itself), in
 * both directions; never on output, where a drop would be reported to the sender's socket as an
 * error rather than lost on the way. Rate is the exception: a tbf qdisc on the egress of both ends
 * of the link, as a slow line limits each direction.
 */

export interface LinkConditions {
  /** Each direction's rate, by a tbf qdisc on both ends of the link. */
  rateKbit?: number;
  /** Random loss in each direction (iptables `statistic`), 0 to 100. */
  lossPercent?: number;
  /** Added one-way delay in each direction (NFQUEUE and the lab's delayer): RTT grows by twice it. */
  delayMs?: number;
  /** Every UDP datagram through the link dropped, as a firewall that allows only TCP. */
  udpBlocked?: boolean;
}

/** The iptables chain of a link's conditions in its router's namespace. */
export function conditionChain(routerInterface: string): string {
  return `lab-${routerInterface}`;
}

/**
 * An `iptables-restore --noflush` script that (re)writes the link's chain, jumped to from FORWARD
 * in both directions and from INPUT. Order matters: NFQUEUE ends the chain (an accepted packet
 * leaves it), so the drops come first. `hook` is true the first time, to add the jumps.
 */
export function conditionRules(
  routerInterface: string,
  conditions: LinkConditions,
  queue: number,
  hook: boolean,
): string {
  const chain = conditionChain(routerInterface);
  const lines = ['*filter', `:${chain} - [0:0]`];
  if (hook) {
    lines.push(
      `-A FORWARD -i ${routerInterface} -j ${chain}`,
      `-A FORWARD -o ${routerInterface} -j ${chain}`,
      `-A INPUT -i ${routerInterface} -j ${chain}`,
    );
  }
  if (conditions.udpBlocked) lines.push(`-A ${chain} -p udp -j DROP`);
  const loss = conditions.lossPercent ?? 0;
  if (loss > 0) {
    const probability = Math.min(loss, 100) / 100;
    lines.push(`-A ${chain} -m statistic --mode random --probability ${probability} -j DROP`);
  }
  if ((conditions.delayMs ?? 0) > 0) lines.push(`-A ${chain} -j NFQUEUE --queue-num ${queue}`);
  lines.push('COMMIT', '');
  return lines.join('\n');
}

/**
 * `tc` arguments for one end of a link: a tbf at the rate, or the default qdisc back. The bucket
 * holds 20 ms of the rate (at least 4 KB); the queue holds 100 ms before dropping.
 */
export function rateArgs(device: string, rateKbit: number | undefined): string[] {
  if (rateKbit === undefined || rateKbit <= 0) return ['qdisc', 'del', 'dev', device, 'root'];
  const burstBytes = Math.max(4096, Math.round((rateKbit * 1000) / 8 / 50));
  return [
    'qdisc',
    'replace',
    'dev',
    device,
    'root',
    'tbf',
    'rate',
    `${rateKbit}kbit`,
    'burst',
    String(burstBytes),
    'latency',
    '100ms',
  ];
}

/** A condition in words, for the lines printed beside results. */
export function describeConditions(conditions: LinkConditions): string {
  const parts: string[] = [];
  if (conditions.rateKbit) parts.push(`rate ${conditions.rateKbit} kbit/s`);
  if (conditions.lossPercent) parts.push(`loss ${conditions.lossPercent}%`);
  if (conditions.delayMs) parts.push(`delay ${conditions.delayMs} ms each way`);
  if (conditions.udpBlocked) parts.push('UDP blocked');
  return parts.length > 0 ? parts.join(', ') : 'no conditions';
}
