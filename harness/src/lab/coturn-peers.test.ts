// Decision 0063: the coturn configuration docs/deployment.md §11 documents, run as written (its
// example addresses swapped for the lab's) with Debian's coturn on the lab's public segment, is
// a relay to the stage and to nothing else, IPv4 and IPv6, and bounds one account's relays by
// `user-quota`. The client is coturn's own turnutils_uclient behind the lab's NAT, its peers
// coturn's turnutils_peer (a UDP echo). In every `npm test`: about 7 s.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnIceServers } from '@tailcam/protocol/turn';
import { labSkippedBanner, labSupport } from './lab-support';
import { LINKS } from './lab-topology';
import { NetworkLab } from './network-lab';

const TURNSERVER = '/usr/bin/turnserver';
const UCLIENT = '/usr/bin/turnutils_uclient';
const PEER = '/usr/bin/turnutils_peer';
const DEPLOYMENT_DOC = join(import.meta.dirname, '..', '..', '..', 'docs', 'deployment.md');
const TURN_SECRET = 'a-lab-coturn-peers-static-auth-secret-of-enough-length';
const PEER_PORT = 3480;
/** Small, so that the quota case needs three relays, not twenty-five. */
const LAB_USER_QUOTA = 2;

const support = labSupport();
const missingTool = [TURNSERVER, UCLIENT, PEER].find((tool) => !existsSync(tool));
const skipReason = !support.ok
  ? support.reason
  : missingTool !== undefined
    ? `${missingTool}: apt-get install coturn`
    : undefined;
if (skipReason !== undefined) {
  console.warn(labSkippedBanner("the documented coturn configuration's peer rules", skipReason));
}

/** The lab's addresses for the documentation's examples (coturn beside the stage). */
const STAGE_V4 = LINKS.stage.endAddress;
const STAGE_V6 = LINKS.stage.ipv6![1];
const EXAMPLE_ADDRESSES: Record<string, string> = {
  '10.0.0.5': STAGE_V4,
  '2001:db8::5': STAGE_V6,
  '203.0.113.7': STAGE_V4,
  '2001:db8::7': STAGE_V6,
};

/**
 * §11's `/etc/turnserver.conf` block, its lines as written but for the example addresses, the
 * secret and what the lab has no use for (a certificate, a public address: the lab has no TLS
 * and coturn is on the public segment), with a log and quotas the test reads.
 */
function documentedConfiguration(dir: string): string {
  const doc = readFileSync(DEPLOYMENT_DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## 11. TURN'));
  const block = /```ini\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('docs/deployment.md §11 has no ```ini block');
  const dropped =
    /^(tls-listening-port|external-ip|cert|pkey|static-auth-secret|realm|user-quota)=/;
  const lines = block
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#') && !dropped.test(line))
    .map((line) => {
      const [key, value] = line.split(/=(.*)/s);
      const swapped = value === undefined ? undefined : (EXAMPLE_ADDRESSES[value] ?? value);
      return swapped === undefined ? line : `${key}=${swapped}`;
    });
  return [
    ...lines,
    `static-auth-secret=${TURN_SECRET}`,
    'realm=tailcam.test',
    `user-quota=${LAB_USER_QUOTA}`,
    'no-tls',
    'no-dtls',
    'no-stdout-log',
    `log-file=${join(dir, 'turnserver.log')}`,
    'simple-log',
    `pidfile=${join(dir, 'turnserver.pid')}`,
    `userdb=${join(dir, 'turndb')}`,
    '',
  ].join('\n');
}

describe.skipIf(skipReason !== undefined)(
  'the documented coturn configuration (docs/deployment.md §11) in the network lab',
  () => {
    let lab: NetworkLab;
    let dir: string;
    let coturn: ChildProcess;

    beforeAll(async () => {
      lab = NetworkLab.create();
      dir = mkdtempSync(join(tmpdir(), 'tailcam-coturn-peers-'));
      const config = join(dir, 'turnserver.conf');
      writeFileSync(config, documentedConfiguration(dir));
      // `timeout` bounds each if this process dies; dispose() stops them otherwise.
      coturn = lab.spawn('stage', 'timeout', ['120', TURNSERVER, '-c', config]);
      // The stage's address, and two other lab hosts a relay could reach: echo peers.
      lab.spawn('stage', PEER, ['-p', String(PEER_PORT), '-L', STAGE_V4, '-L', STAGE_V6]);
      lab.spawn('vm', PEER, ['-p', String(PEER_PORT), '-L', lab.addresses.vmPrivate]);
      lab.spawn('nat', PEER, ['-p', String(PEER_PORT), '-L', LINKS.nat.ipv6![1]]);
      // coturn is ready once it listens on 3478 over TCP (bounded: 10 s).
      const deadline = Date.now() + 10_000;
      for (;;) {
        const probe = await lab.exec('stage', 'ss', ['-Hltn', 'sport', '=', ':3478'], {
          timeoutMs: 2_000,
        });
        if (probe.stdout.includes(STAGE_V4)) break;
        if (coturn.exitCode !== null || Date.now() > deadline) {
          throw new Error(
            `coturn did not start:\n${readFileSync(join(dir, 'turnserver.log'), 'utf8')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    afterAll(async () => {
      await lab?.dispose();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    /**
     * turnutils_uclient from the viewer behind NAT, over TCP to coturn: allocates a relay (IPv6
     * with `-x`), binds a channel to the peer and sends it `messages` datagrams to echo. Its
     * output says what coturn answered.
     */
    function relay(userId: string, peer: string, options: { ipv6?: boolean; at?: Date } = {}) {
      const [server] = turnIceServers(
        { urls: ['turn:lab'], secret: TURN_SECRET, credentialMinutes: 10 },
        userId,
        options.at,
      );
      const args = ['-t', '-c', '-n', '1', '-z', '5', ...(options.ipv6 ? ['-x'] : [])];
      return lab.exec(
        'viewer',
        UCLIENT,
        [
          ...args,
          '-e',
          peer,
          '-r',
          String(PEER_PORT),
          '-u',
          server!.username,
          '-w',
          server!.credential,
          STAGE_V4,
        ],
        { timeoutMs: 15_000 },
      );
    }
    const echoed = (stdout: string) => /tot_recv_msgs=1\b/.test(stdout);

    it('relays to the stage over IPv4 and IPv6, and refuses every other lab address', async () => {
      const started = performance.now();
      const [stageV4, stageV6, otherV4, otherV6, router] = await Promise.all([
        relay('viewer-v4', STAGE_V4),
        relay('viewer-v6', STAGE_V6, { ipv6: true }),
        relay('viewer-other-v4', lab.addresses.vmPublic),
        relay('viewer-other-v6', LINKS.nat.ipv6![1], { ipv6: true }),
        relay('viewer-router', LINKS.stage.routerAddress),
      ]);
      console.log(
        `[lab] coturn as documented: relay to the stage ${echoed(stageV4.stdout) ? 'echoed' : 'failed'} (IPv4), ` +
          `${echoed(stageV6.stdout) ? 'echoed' : 'failed'} (IPv6); to ${lab.addresses.vmPublic}, ` +
          `${LINKS.nat.ipv6![1]} and ${LINKS.stage.routerAddress}: ` +
          `${[otherV4, otherV6, router].filter((run) => /403 \(Forbidden IP\)/.test(run.stdout)).length} of 3 refused 403 ` +
          `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
      expect(stageV4.status).toBe(0);
      expect(echoed(stageV4.stdout)).toBe(true);
      expect(stageV6.status).toBe(0);
      expect(echoed(stageV6.stdout)).toBe(true);
      for (const refused of [otherV4, otherV6, router]) {
        expect(refused.stdout).toMatch(/403 \(Forbidden IP\)/);
        expect(echoed(refused.stdout)).toBe(false);
      }
    });

    it("bounds one account's relays at once by user-quota, with credentials made seconds apart", async () => {
      // Three peer connections of one account, their credentials made a second apart, as three
      // OPTIONS or three tokens would be: at user-quota 2, one of the three is refused.
      // Each has its own username (`<expiry>:viewer-quota`): coturn counts the quota by the
      // user part of a REST username, so one account's relays are counted together.
      const base = Date.now();
      const runs = await Promise.all(
        [0, 1_000, 2_000].map((offsetMs) =>
          relay('viewer-quota', STAGE_V4, { at: new Date(base + offsetMs) }),
        ),
      );
      const refused = runs.filter((run) => /486 \(Allocation Quota Reached\)/.test(run.stdout));
      const relayed = runs.filter((run) => echoed(run.stdout));
      console.log(
        `[lab] user-quota=${LAB_USER_QUOTA}, three relays at once for one account: ` +
          `${relayed.length} relayed, ${refused.length} refused 486`,
      );
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(relayed.length).toBeLessThanOrEqual(LAB_USER_QUOTA);
    });
  },
);
