/**
 * What a lab link can be made to do, and the kernel settings that do it, all in the namespace of
 * the link's router (the end that forwards), for packets in both directions:
 *
 * - Loss and blocked UDP: DROP rules on the forward path (FORWARD -i/-o the link's device) and on
 *   input, never on output, where a drop would be reported to the sending socket as an error
 *   rather than lost on the way.
 * - Delay: NFQUEUE in mangle PREROUTING (packets in from the link) and POSTROUTING (packets out to
 *   it), read by the lab's delayer. An accepted packet goes on to the next hook, so a packet
 *   crossing two conditioned links of one router meets both delays; two NFQUEUEs in one chain
 *   would not add up. Never at the receiving host itself: a host stamps a packet's arrival before
 *   its INPUT rules run (ping's RTT and libwebrtc's arrival times read that stamp), so a delay
 *   there would not show.
 * - Rate: a tbf qdisc on the egress of both ends, as a slow line limits each direction.
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

/**
 * An `iptables-restore --noflush` script that (re)writes a link's chains in its router's
 * namespace: `lab-DEVICE-in` and `lab-DEVICE-out` (filter) for the drops, `lab-DEVICE-delay`
 * (mangle) for the delay. `hook` is true the first time, to add the jumps to them.
 */
export function conditionRules(
  device: string,
  conditions: LinkConditions,
  queue: number,
  hook: boolean,
): string {
  const [inbound, outbound, delay] = ['in', 'out', 'delay'].map((part) => `lab-${device}-${part}`);
  const drops: string[] = [];
  if (conditions.udpBlocked) drops.push('-p udp -j DROP');
  const loss = conditions.lossPercent ?? 0;
  if (loss > 0) {
    const probability = Math.min(loss, 100) / 100;
    drops.push(`-m statistic --mode random --probability ${probability} -j DROP`);
  }
  const lines = ['*filter', `:${inbound} - [0:0]`, `:${outbound} - [0:0]`];
  if (hook) {
    lines.push(
      `-A FORWARD -i ${device} -j ${inbound}`,
      `-A INPUT -i ${device} -j ${inbound}`,
      `-A FORWARD -o ${device} -j ${outbound}`,
    );
  }
  for (const chain of [inbound, outbound])
    lines.push(...drops.map((rule) => `-A ${chain} ${rule}`));
  lines.push('COMMIT', '*mangle', `:${delay} - [0:0]`);
  if (hook) {
    lines.push(`-A PREROUTING -i ${device} -j ${delay}`, `-A POSTROUTING -o ${device} -j ${delay}`);
  }
  if ((conditions.delayMs ?? 0) > 0) lines.push(`-A ${delay} -j NFQUEUE --queue-num ${queue}`);
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
