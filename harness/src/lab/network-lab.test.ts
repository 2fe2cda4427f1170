// The lab's smoke test, run by every `npm test` in a few seconds: the lab builds, NAT and 1:1 NAT
// behave as on real networks, each link condition measures as set (the figures are printed), and
// nothing is left behind. One lab serves the file (building one takes about half a second); each
// test clears the viewer link's conditions after itself.
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { labSkippedBanner, labSupport } from './lab-support';
import { describeConditions } from './link-conditions';
import { formatMeasurement } from './lab-measurement';
import { isAlive, LAB_PREFIX, sweepStaleLabs } from './lab-processes';
import { NetworkLab } from './network-lab';

const support = labSupport();
if (!support.ok) console.warn(labSkippedBanner('the network lab smoke test', support.reason));

describe.skipIf(!support.ok)('the network lab', () => {
  let lab: NetworkLab;
  const startedAt = performance.now();

  beforeAll(() => {
    lab = NetworkLab.create();
  });
  afterEach(async () => {
    if (!lab.isDisposed) await lab.setConditions('viewer', {});
  });
  afterAll(async () => {
    await lab?.dispose();
    console.log(`[lab] smoke test: ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  });

  it("lets a viewer behind NAT reach the stage's public address, where it is seen as the router", async () => {
    expect(await lab.seenAs('viewer', 'stage')).toBe(lab.addresses.natPublic);
    expect(await lab.seenAs('publisher', 'stage')).toBe(lab.addresses.natPublic);
  });

  it('reaches a stage behind 1:1 NAT at its public address, while the stage knows only its private one', async () => {
    expect(await lab.seenAs('viewer', 'vm')).toBe(lab.addresses.natPublic);
    expect(await lab.seenAs('stage', 'vm')).toBe(lab.addresses.stage);
    const vmAddresses = await lab.exec('vm', 'ip', ['-4', '-o', 'addr', 'show']);
    expect(vmAddresses.stdout).toContain(lab.addresses.vmPrivate);
    expect(vmAddresses.stdout).not.toContain(lab.addresses.vmPublic);
    // Hairpin: the VM reaches its own public address, seen as it.
    expect(await lab.seenAs('vm', 'vm')).toBe(lab.addresses.vmPublic);
    expect((await lab.udpBurst('vm', 'vm', 20)).received).toBe(20);
  });

  it('reaches the stage over IPv6 on the public segment', async () => {
    const ping = await lab.exec('nat', 'ping', [
      '-6',
      '-n',
      '-c',
      '1',
      '-W',
      '2',
      lab.addresses.stageIpv6,
    ]);
    expect(ping.status).toBe(0);
  });

  it('does not route private addresses across the public segment', async () => {
    expect(await lab.tcpReaches('stage', 'viewer')).toBe(false);
  });

  it('gives a fast, lossless path without conditions', async () => {
    const measured = await lab.measure('viewer', 'stage');
    console.log(formatMeasurement(measured, describeConditions({})));
    expect(measured.rttMs).toBeLessThan(5);
    expect(measured.lossPercent).toBe(0);
    // Far above any rate a test sets (a loaded machine's slow start keeps it from more).
    expect(measured.rateKbit).toBeGreaterThan(10_000);
  });

  it('limits a link to about its rate', async () => {
    await lab.setConditions('viewer', { rateKbit: 4_000 });
    const measured = await lab.measure('viewer', 'stage', { figures: ['rate'] });
    console.log(lab.describe('viewer', measured));
    expect(measured.rateKbit).toBeGreaterThan(3_000);
    expect(measured.rateKbit).toBeLessThan(4_600);
  });

  it('drops about the share of datagrams a random loss is set to', async () => {
    await lab.setConditions('viewer', { lossPercent: 20 });
    const measured = await lab.measure('viewer', 'stage', { figures: ['loss'] });
    console.log(lab.describe('viewer', measured));
    // 400 datagrams at 20%: the standard deviation is 2 points, so 8 to 35% is 6 of them.
    expect(measured.lossPercent).toBeGreaterThan(8);
    expect(measured.lossPercent).toBeLessThan(35);
  });

  it('adds a delay in each direction, twice it to the round trip', async () => {
    await lab.setConditions('viewer', { delayMs: 40 });
    const measured = await lab.measure('viewer', 'stage', { figures: ['rtt'] });
    console.log(lab.describe('viewer', measured));
    expect(measured.rttMs).toBeGreaterThanOrEqual(80);
    expect(measured.rttMs).toBeLessThan(160);
  });

  it('blocks every UDP datagram and lets TCP through when UDP is blocked', async () => {
    await lab.setConditions('viewer', { udpBlocked: true });
    const burst = await lab.udpBurst('viewer', 'stage', 50);
    console.log(`[lab] viewer → stage, UDP blocked: ${burst.received}/${burst.sent} UDP arrived`);
    expect(burst.received).toBe(0);
    expect(await lab.tcpReaches('viewer', 'stage')).toBe(true);
  });

  it('sweeps the namespaces of a dead run and keeps those of a live one', () => {
    const dead = spawnSync('true').pid;
    const staleName = `${LAB_PREFIX}${dead}-1-inet`;
    const liveName = `${LAB_PREFIX}${process.pid}-999-inet`;
    for (const name of [staleName, liveName]) spawnSync('ip', ['netns', 'add', name]);
    try {
      expect(sweepStaleLabs()).toEqual([staleName]);
      const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
      expect(listed).not.toContain(staleName);
      expect(listed).toContain(liveName);
    } finally {
      for (const name of [staleName, liveName]) spawnSync('ip', ['netns', 'del', name]);
    }
  });

  it('tears down every namespace and process it made', async () => {
    const namespaces = Object.values(lab.namespaces);
    expect(lab.remainingNamespaces().sort()).toEqual([...namespaces].sort());
    // The probe agents of the hosts measured, at least.
    const processes = lab.processIds();
    expect(processes.length).toBeGreaterThan(0);
    await lab.dispose();
    expect(lab.remainingNamespaces()).toEqual([]);
    expect(processes.filter(isAlive)).toEqual([]);
    const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
    for (const name of namespaces) expect(listed).not.toContain(name);
  });
});
