/**
 * Kept as one file: building, the processes started in it, the conditions and the probes all
 * share one lab's namespaces and children, which dispose() must find in one place. What needs no
 * lab lives beside it: the topology, the rules, the measurement's shape, the sweep.
 *
 * The network lab: network namespaces joined by veth links, built and torn down by a test, in
 * which the stage, Chromium and the WHIP/WHEP clients run as they would on real networks.
 *
 *   viewer ──┐                                              ┌── stage   198.18.1.2, 2001:2:0:1::2
 *            nat (masquerade) 198.18.2.2 ── inet (router) ──┤
 *   publisher┘  LAN 198.19.1.0/24, 198.19.2.0/24            └── cloud (1:1 NAT) 198.18.3.2
 *                                                                └── vm 198.19.3.2 (private only)
 *
 * - `inet` is the public internet: it routes 198.18.1-3.0/24 (and 2001:2:0:1-3::/64) and nothing
 *   else, so a private address is unreachable from outside, as on the real one.
 * - `nat` is a home or carrier router: its viewers and publishers reach out, the stage sees them as
 *   198.18.2.2. `cloud` maps its public address one to one onto the VM's private address, as a
 *   cloud provider does, so a stage on the VM knows only 198.19.3.2.
 * - Addresses only from 198.18.0.0/15 and 2001:2::/48 (benchmarking ranges), and no link out of
 *   the lab: nothing a test does inside reaches the machine's own networks.
 * - Namespaces are named `tc-<pid>-<random>-<role>`, so runs in parallel never meet, and a crashed
 *   run's are swept by the next (`sweepStaleLabs`: only those whose pid is dead).
 * - Conditions per link (link-conditions.ts); `measure()` says what they really give.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { labSupport, type LabTool } from './lab-support';
import { formatMeasurement, type MeasureOptions, type Measurement } from './lab-measurement';
import {
  deleteNamespace,
  LAB_PREFIX,
  listNamespaces,
  namespacePids,
  stopChild,
  sweepStaleLabs,
  waitForLine,
} from './lab-processes';
import {
  LAB_ADDRESSES,
  LINKS,
  NAMESPACES,
  REACHED_AT,
  type Host,
  type LabNamespace,
  type LinkName,
} from './lab-topology';
import type { z } from 'zod';
import {
  PROBE_PORT,
  PROBE_SCRIPT,
  ProbeAgent,
  transferReply,
  udpCountReply,
  udpReply,
  whoamiReply,
  type ProbeOperation,
} from './probe-agent';
import {
  conditionRules,
  describeConditions,
  rateArgs,
  type LinkConditions,
} from './link-conditions';

/** No lab outlives this, even if nothing tears it down: its helpers stop on their own. */
const MAX_LAB_SECONDS = 30 * 60;
const COMMAND_TIMEOUT_MS = 10_000;
const DELAYER_SCRIPT = join(import.meta.dirname, 'delayer.py');
const BRIDGE_SCRIPT = join(import.meta.dirname, 'loopback-bridge.mjs');

export interface ExecResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export class NetworkLab {
  /** The namespace names of this lab, by role. */
  readonly namespaces: Record<LabNamespace, string>;
  readonly addresses = LAB_ADDRESSES;
  private readonly tools: Record<LabTool, string>;
  private readonly tempDir: string;
  private readonly children = new Set<ChildProcess>();
  private readonly conditions = new Map<LinkName, LinkConditions>();
  private readonly delayers = new Map<LinkName, ChildProcess>();
  /** Links whose chains exist and are jumped to. */
  private readonly hooked = new Set<LinkName>();
  private readonly bridges = new Set<Server>();
  private readonly agents = new Map<Host, Promise<ProbeAgent>>();
  private nextQueue = 1;
  private disposed = false;
  /** Whether dispose() has run: nothing can be started or set after. */
  get isDisposed(): boolean {
    return this.disposed;
  }
  /** Deletes the namespaces if the process exits before dispose() (a killed test worker). */
  private readonly deleteOnExit = () => this.deleteNamespaces();

  private constructor(tools: Record<LabTool, string>) {
    this.tools = tools;
    // The pid tells the sweep whether the run is alive; the random part tells two labs apart.
    const prefix = `${LAB_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}-`;
    this.namespaces = Object.fromEntries(
      NAMESPACES.map((role) => [role, `${prefix}${role}`]),
    ) as Record<LabNamespace, string>;
    this.tempDir = mkdtempSync(join(tmpdir(), 'tailcam-lab-'));
  }

  /** Builds the lab (see the file's header); throws if it cannot be built here (see labSupport). */
  static create(): NetworkLab {
    const support = labSupport();
    if (!support.ok) throw new Error(`the network lab cannot be built here: ${support.reason}`);
    sweepStaleLabs(support.tools.ip);
    const lab = new NetworkLab(support.tools);
    process.once('exit', lab.deleteOnExit);
    try {
      lab.build();
    } catch (error) {
      lab.disposed = true;
      lab.deleteNamespaces();
      process.off('exit', lab.deleteOnExit);
      rmSync(lab.tempDir, { recursive: true, force: true });
      throw error;
    }
    return lab;
  }

  private build(): void {
    for (const role of NAMESPACES) {
      this.run('ip', ['netns', 'add', this.namespaces[role]]);
      this.ip(role, ['link', 'set', 'lo', 'up']);
      // No duplicate address detection on the links to come (link-local addresses included): an
      // address is usable at once, not after a second, and no first packet waits for it.
      this.setSysctl(role, 'net/ipv6/conf/default/accept_dad', 0);
    }
    const links = Object.values(LINKS);
    // Links first and up at once: a veth's carrier is announced asynchronously (up to a second
    // later), and addressing meanwhile uses that time.
    for (const { router, routerInterface, end, endInterface } of links) {
      const peer = ['peer', 'name', endInterface, 'netns', this.namespaces[end]];
      this.ip(router, ['link', 'add', routerInterface, 'type', 'veth', ...peer]);
      this.ip(router, ['link', 'set', routerInterface, 'up']);
      this.ip(end, ['link', 'set', endInterface, 'up']);
    }
    for (const plan of links) {
      const { router, routerInterface, end, endInterface } = plan;
      this.ip(router, ['addr', 'add', `${plan.routerAddress}/24`, 'dev', routerInterface]);
      this.ip(end, ['addr', 'add', `${plan.endAddress}/24`, 'dev', endInterface]);
      if (plan.ipv6) {
        this.ip(router, ['addr', 'add', `${plan.ipv6[0]}/64`, 'dev', routerInterface, 'nodad']);
        this.ip(end, ['addr', 'add', `${plan.ipv6[1]}/64`, 'dev', endInterface, 'nodad']);
      }
      this.ip(end, ['route', 'add', 'default', 'via', plan.routerAddress]);
      if (plan.ipv6) this.ip(end, ['-6', 'route', 'add', 'default', 'via', plan.ipv6[0]]);
    }
    for (const router of ['inet', 'nat', 'cloud'] as const) {
      this.setSysctl(router, 'net/ipv4/ip_forward', 1);
    }
    this.setSysctl('inet', 'net/ipv6/conf/all/forwarding', 1);
    this.restore('nat', 'iptables-restore', '*nat\n-A POSTROUTING -o wan -j MASQUERADE\nCOMMIT\n');
    const { vmPublic, vmPrivate } = LAB_ADDRESSES;
    // The VM reaches its own public address too (hairpin NAT, as cloud providers' 1:1 NAT does):
    // a stage that announces only its public address is reached by the cameras beside it.
    this.restore(
      'cloud',
      'iptables-restore',
      `*nat\n-A PREROUTING -i wan -d ${vmPublic} -j DNAT --to-destination ${vmPrivate}\n` +
        `-A PREROUTING -i vm -d ${vmPublic} -j DNAT --to-destination ${vmPrivate}\n` +
        `-A POSTROUTING -o wan -s ${vmPrivate} -j SNAT --to-source ${vmPublic}\n` +
        `-A POSTROUTING -o vm -s ${vmPrivate} -d ${vmPrivate} -j SNAT --to-source ${vmPublic}\n` +
        'COMMIT\n',
    );
    // A hairpinned packet leaves by the interface it came in on: no ICMP redirect for it.
    this.setSysctl('cloud', 'net/ipv4/conf/all/send_redirects', 0);
    this.setSysctl('cloud', 'net/ipv4/conf/vm/send_redirects', 0);
    this.waitForCarrier();
  }

  /**
   * Waits (at most 3 s) until every link has its carrier: before that its queue drops what is
   * sent, and the first IPv6 neighbour solicitation is lost for a second.
   */
  private waitForCarrier(): void {
    const deadline = Date.now() + 3_000;
    const waiting = new Set(NAMESPACES);
    while (waiting.size > 0) {
      for (const role of waiting) {
        // `ip -br link`: one line per device; a veth without carrier says LOWERLAYERDOWN or DOWN.
        const links = this.ip(role, ['-br', 'link', 'show']);
        const down = links.split('\n').filter((line) => /^\S+\s+(DOWN|LOWERLAYERDOWN)/.test(line));
        if (down.length === 0) waiting.delete(role);
      }
      if (waiting.size === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`links without carrier after 3 s in ${[...waiting].join(', ')}`);
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }

  /** A tool run synchronously in the root namespace; throws with its stderr if it fails. */
  private run(tool: LabTool, args: string[], input?: string): string {
    const command = this.tools[tool];
    const result = spawnSync(command, args, {
      encoding: 'utf8',
      input,
      timeout: COMMAND_TIMEOUT_MS,
    });
    if (result.status !== 0) {
      throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error}`);
    }
    return result.stdout;
  }

  private ip(role: LabNamespace, args: string[]): string {
    return this.run('ip', ['-n', this.namespaces[role], ...args]);
  }

  /**
   * Sets a namespace's setting. /proc/sys/net shows the namespace of whoever opens it, so a shell
   * inside writes it (no dependency on procps' sysctl).
   */
  private setSysctl(role: LabNamespace, path: string, value: number): void {
    const write = `echo ${value} > /proc/sys/${path}`;
    this.run('ip', ['netns', 'exec', this.namespaces[role], '/bin/sh', '-c', write]);
  }

  private restore(
    role: LabNamespace,
    tool: 'iptables-restore' | 'ip6tables-restore',
    rules: string,
  ) {
    const args = ['netns', 'exec', this.namespaces[role], this.tools[tool], '--noflush'];
    this.run('ip', args, rules);
  }

  /** `ip netns exec NS command args`: the command and arguments a process in `role` is run with. */
  command(role: LabNamespace, command: string, args: readonly string[] = []): [string, string[]] {
    return [this.tools.ip, ['netns', 'exec', this.namespaces[role], command, ...args]];
  }

  /**
   * Runs a command in a namespace to its end (bounded by timeoutMs, 30 s unless told), with its
   * output. Never throws for the command's status; the caller reads it.
   */
  exec(
    role: LabNamespace,
    command: string,
    args: readonly string[] = [],
    options: { timeoutMs?: number; input?: string; env?: NodeJS.ProcessEnv } = {},
  ): Promise<ExecResult> {
    const child = this.spawn(role, command, args, { env: options.env });
    return new Promise((resolve) => {
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin?.end(options.input ?? '');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
      child.once('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
    });
  }

  /**
   * Starts a process in a namespace (`ip netns exec` replaces itself with it, so the child's pid
   * is the process's own). It is stopped by dispose() if it has not ended by then.
   */
  spawn(
    role: LabNamespace,
    command: string,
    args: readonly string[] = [],
    options: SpawnOptions = {},
  ): ChildProcess {
    if (this.disposed) throw new Error('the lab is torn down');
    const [ip, ipArgs] = this.command(role, command, args);
    const child = spawn(ip, ipArgs, { stdio: 'pipe', ...options });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    child.once('error', () => this.children.delete(child));
    return child;
  }

  /**
   * A 127.0.0.1 URL at which this process reaches `address:port` inside `role`'s namespace (the
   * product's API or the stage's own port, say), through a Unix socket file: the lab has no route
   * from the machine's own namespace, and keeps none.
   */
  async loopbackUrl(role: LabNamespace, address: string, port: number): Promise<string> {
    const socketPath = join(this.tempDir, `bridge-${role}-${port}.sock`);
    const args = [BRIDGE_SCRIPT, socketPath, address, String(port), String(MAX_LAB_SECONDS)];
    await waitForLine(this.spawn(role, process.execPath, args), 'ready', 10_000, 'the bridge');
    const server = createServer((incoming) => {
      const outgoing = connect(socketPath);
      incoming.pipe(outgoing).pipe(incoming);
      const close = () => {
        incoming.destroy();
        outgoing.destroy();
      };
      incoming.on('error', close).on('close', close);
      outgoing.on('error', close).on('close', close);
    });
    this.bridges.add(server);
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port: localPort } = server.address() as AddressInfo;
    return `http://127.0.0.1:${localPort}`;
  }

  /**
   * An executable that runs Debian's Chromium in `role`'s namespace: Playwright's executablePath
   * for a browser behind NAT or on the public segment.
   */
  chromiumExecutable(role: LabNamespace, chromium = '/usr/bin/chromium'): string {
    const path = join(this.tempDir, `chromium-${role}`);
    writeFileSync(
      path,
      `#!/bin/sh\nexec ${this.tools.ip} netns exec ${this.namespaces[role]} ${chromium} "$@"\n`,
    );
    chmodSync(path, 0o755);
    return path;
  }

  /** What the link is set to now. */
  linkConditions(name: LinkName): LinkConditions {
    return { ...this.conditions.get(name) };
  }

  /** Sets a link's conditions, replacing what it had; `{}` clears them. */
  async setConditions(name: LinkName, conditions: LinkConditions): Promise<void> {
    const plan = LINKS[name];
    const queue = this.nextQueue++;
    const oldDelayer = this.delayers.get(name);
    this.delayers.delete(name);
    // The new delayer listens before any rule sends it packets, and the old one stops only after
    // its rule is gone: no packet is queued where nobody reads.
    if ((conditions.delayMs ?? 0) > 0) {
      this.delayers.set(name, await this.startDelayer(plan.router, queue, conditions.delayMs!));
    }
    const rules = conditionRules(plan.routerInterface, conditions, queue, !this.hooked.has(name));
    this.restore(plan.router, 'iptables-restore', rules);
    if (plan.ipv6) this.restore(plan.router, 'ip6tables-restore', rules);
    this.hooked.add(name);
    if (oldDelayer) await stopChild(oldDelayer);
    const hadRate = (this.conditions.get(name)?.rateKbit ?? 0) > 0;
    if (hadRate || (conditions.rateKbit ?? 0) > 0) {
      for (const [role, device] of [
        [plan.router, plan.routerInterface],
        [plan.end, plan.endInterface],
      ] as const) {
        this.run('tc', ['-n', this.namespaces[role], ...rateArgs(device, conditions.rateKbit)]);
      }
    }
    this.conditions.set(name, { ...conditions });
  }

  private async startDelayer(role: LabNamespace, queue: number, delayMs: number) {
    const args = [DELAYER_SCRIPT, String(queue), String(delayMs), String(MAX_LAB_SECONDS)];
    const child = this.spawn(role, this.tools.python3, args);
    await waitForLine(child, 'ready', 5_000, 'the delayer');
    return child;
  }

  /** The probe agent of a host, started once: it serves on port 5201 and measures on request. */
  private agent(host: Host): Promise<ProbeAgent> {
    let agent = this.agents.get(host);
    if (!agent) {
      const args = [PROBE_SCRIPT, 'agent', String(PROBE_PORT), String(MAX_LAB_SECONDS)];
      const child = this.spawn(host, process.execPath, args);
      agent = ProbeAgent.start(child, `the probe agent in ${host}`);
      this.agents.set(host, agent);
    }
    return agent;
  }

  /** Asks `from`'s agent to measure against `to`'s (started first, so something answers). */
  private async probe<T>(
    from: Host,
    to: Host,
    op: ProbeOperation,
    reply: z.ZodType<T>,
    count = 0,
    address = REACHED_AT[to],
  ): Promise<T> {
    const [agent] = await Promise.all([this.agent(from), this.agent(to)]);
    return agent.request(op, reply, address, count);
  }

  /** The address `to` sees a TCP connection from `from` come from (NAT shows its router's). */
  async seenAs(from: Host, to: Host): Promise<string> {
    return (await this.probe(from, to, 'whoami', whoamiReply)).address;
  }

  /** Whether a TCP connection from `from` reaches `to`. */
  async tcpReaches(from: Host, to: Host): Promise<boolean> {
    return this.seenAs(from, to).then(
      () => true,
      () => false,
    );
  }

  /** A paced burst of UDP datagrams from `from` to `to`: how many were sent and arrived. */
  async udpBurst(from: Host, to: Host, datagrams: number, address = REACHED_AT[to]) {
    const { burst } = await this.probe(from, to, 'udp', udpReply, datagrams, address);
    const receiver = await this.agent(to);
    // What is still on its way arrives within a tbf queue's 100 ms and the delays of a path.
    const delays = [...this.conditions.values()].map((set) => set.delayMs ?? 0);
    const settleMs = 200 + 2 * delays.reduce((sum, delay) => sum + delay, 0);
    await new Promise((settle) => setTimeout(settle, settleMs));
    const { received } = await receiver.request('udp-count', udpCountReply, '', 0, burst);
    return { sent: datagrams, received };
  }

  /** Pings `address` from `from`: the mean round trip, and how many of `count` came back. */
  async ping(from: Host, address: string, count = 10) {
    const result = await this.exec(
      from,
      this.tools.ping,
      ['-n', '-q', '-c', String(count), '-i', '0.02', '-W', '2', address],
      { timeoutMs: 10_000 + count * 100 },
    );
    const received = /(\d+) received/.exec(result.stdout)?.[1];
    const mean = /= [\d.]+\/([\d.]+)\//.exec(result.stdout)?.[1];
    return {
      sent: count,
      received: received === undefined ? 0 : Number(received),
      rttMs: mean === undefined ? undefined : Number(mean),
    };
  }

  /** A bounded TCP transfer: its goodput in kbit/s (down: `to` sends to `from`). */
  async rate(from: Host, to: Host, bytes = 256_000, direction: 'down' | 'up' = 'down') {
    return (await this.probe(from, to, direction, transferReply, bytes)).kbit;
  }

  /**
   * What the path from `from` to `to` really gives: RTT (ping), one-way loss (a UDP burst), TCP
   * rate (a bounded transfer); each bounded in count and time. The transfer runs alone, after.
   */
  async measure(from: Host, to: Host, options: MeasureOptions = {}): Promise<Measurement> {
    const { figures = ['rtt', 'loss', 'rate'], direction = 'down' } = options;
    const address = REACHED_AT[to];
    const measurement: Measurement = { from, to, address, direction };
    await Promise.all([this.agent(from), this.agent(to)]);
    await Promise.all([
      figures.includes('rtt') &&
        this.ping(from, address, options.pings ?? 10).then((ping) => {
          measurement.rttMs = ping.rttMs;
          measurement.pingsSent = ping.sent;
          measurement.pingsReceived = ping.received;
        }),
      figures.includes('loss') &&
        this.udpBurst(from, to, options.datagrams ?? 400).then((udp) => {
          measurement.lossPercent = (100 * (udp.sent - udp.received)) / udp.sent;
          measurement.udpSent = udp.sent;
          measurement.udpReceived = udp.received;
        }),
    ]);
    if (figures.includes('rate')) {
      measurement.rateKbit = await this.rate(from, to, options.bytes ?? 256_000, direction);
    }
    return measurement;
  }

  /** One line: the link's conditions as set, and what they measured. */
  describe(name: LinkName, measurement: Measurement): string {
    return formatMeasurement(measurement, describeConditions(this.linkConditions(name)));
  }

  /** The processes running in this lab's namespaces now (none after dispose()). */
  processIds(): number[] {
    return this.remainingNamespaces().flatMap((name) => namespacePids(this.tools.ip, name));
  }

  /** This lab's namespaces that still exist (none after dispose()). */
  remainingNamespaces(): string[] {
    const mine = new Set(Object.values(this.namespaces));
    return listNamespaces(this.tools.ip).filter((name) => mine.has(name));
  }

  /** Stops every process it started, then deletes its namespaces (and their links and rules). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const server of this.bridges) server.close();
    await Promise.all([...this.children].map((child) => stopChild(child)));
    this.deleteNamespaces();
    process.off('exit', this.deleteOnExit);
    rmSync(this.tempDir, { recursive: true, force: true });
  }

  private deleteNamespaces(): void {
    for (const name of Object.values(this.namespaces)) deleteNamespace(this.tools.ip, name);
  }
}
