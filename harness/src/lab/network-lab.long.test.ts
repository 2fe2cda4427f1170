// The lab's long cases, behind TAILCAM_LONG_TESTS=1 (docs/configuration.md): every condition at
// several strengths on the links viewers, publishers and stages sit behind, with larger transfers
// than the smoke test's, each figure printed beside the condition set; Chromium run behind NAT;
// and Tailcam itself started on the public segment and behind 1:1 NAT, opened by that Chromium.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumExecutable } from '../chromium';
import { playback } from '../player';
import type { Product } from '../product';
import { signIn } from '../sign-in';
import { startLabProduct } from './lab-fixtures';
import { labProduct, type ProductHost } from './lab-product';
import { labSkippedBanner, labSupport } from './lab-support';
import type { LinkName } from './lab-topology';
import type { LinkConditions } from './link-conditions';
import { NetworkLab } from './network-lab';

const LONG = process.env.TAILCAM_LONG_TESTS === '1';
const support = labSupport();
if (!LONG) {
  console.log('[lab] the long lab cases are skipped: set TAILCAM_LONG_TESTS=1 to run them.');
} else if (!support.ok) {
  console.warn(labSkippedBanner('the long network lab cases', support.reason));
}

describe.skipIf(!LONG || !support.ok)('the network lab, long cases', () => {
  let lab: NetworkLab;
  const touched = new Set<LinkName>();

  beforeAll(() => {
    lab = NetworkLab.create();
  });
  afterEach(async () => {
    for (const link of touched) await lab.setConditions(link, {});
    touched.clear();
  });
  afterAll(async () => {
    await lab?.dispose();
    expect(lab?.remainingNamespaces() ?? []).toEqual([]);
  });

  async function measureUnder(
    link: LinkName,
    conditions: LinkConditions,
    from: 'viewer' | 'publisher' | 'stage',
    to: 'stage' | 'vm',
  ) {
    touched.add(link);
    await lab.setConditions(link, conditions);
    const measured = await lab.measure(from, to, {
      // 1 MB, or 3 seconds' worth of a slower rate; 200 KB under heavy loss, which TCP crawls
      // through.
      bytes: Math.min(
        (conditions.lossPercent ?? 0) >= 10 ? 200_000 : 1_000_000,
        ((conditions.rateKbit ?? Infinity) * 1000 * 3) / 8,
      ),
      datagrams: 2_000,
      pings: 20,
      direction: from === 'publisher' ? 'up' : 'down',
    });
    console.log(lab.describe(link, measured));
    return measured;
  }

  it.each([500, 2_000, 8_000, 20_000])(
    'limits the viewer link to about %i kbit/s',
    async (rateKbit) => {
      const measured = await measureUnder('viewer', { rateKbit }, 'viewer', 'stage');
      expect(measured.rateKbit).toBeGreaterThan(rateKbit * 0.75);
      expect(measured.rateKbit).toBeLessThan(rateKbit * 1.1);
    },
    60_000,
  );

  it.each([1, 5, 20])(
    'drops about %i% of datagrams on the viewer link',
    async (lossPercent) => {
      const measured = await measureUnder('viewer', { lossPercent }, 'viewer', 'stage');
      // 2,000 datagrams: six standard deviations either side.
      const spread = 6 * Math.sqrt((lossPercent * (100 - lossPercent)) / 2_000);
      expect(measured.lossPercent).toBeGreaterThan(lossPercent - spread);
      expect(measured.lossPercent).toBeLessThan(lossPercent + spread);
    },
    60_000,
  );

  it.each([10, 50, 150])(
    'adds %i ms each way on the viewer link',
    async (delayMs) => {
      const measured = await measureUnder('viewer', { delayMs }, 'viewer', 'stage');
      expect(measured.rttMs).toBeGreaterThanOrEqual(2 * delayMs);
      expect(measured.rttMs).toBeLessThan(2 * delayMs + 30);
    },
    60_000,
  );

  it('gives a publisher a slow, lossy, distant uplink (a cellular link)', async () => {
    const measured = await measureUnder(
      'publisher',
      { rateKbit: 3_000, lossPercent: 2, delayMs: 60 },
      'publisher',
      'stage',
    );
    expect(measured.rttMs).toBeGreaterThanOrEqual(120);
    expect(measured.rateKbit).toBeLessThan(3_300);
  }, 60_000);

  it('conditions the NAT router and cloud uplinks too, and they add up along a path', async () => {
    touched.add('nat');
    touched.add('cloud');
    await lab.setConditions('nat', { delayMs: 20 });
    await lab.setConditions('cloud', { delayMs: 30, rateKbit: 5_000 });
    const measured = await lab.measure('viewer', 'vm', { bytes: 1_000_000, datagrams: 1_000 });
    console.log(lab.describe('cloud', measured), '(with nat: delay 20 ms each way)');
    expect(measured.rttMs).toBeGreaterThanOrEqual(100);
    expect(measured.rateKbit).toBeLessThan(5_500);
  }, 60_000);

  it('blocks UDP for a viewer behind NAT while TCP goes through', async () => {
    touched.add('viewer');
    await lab.setConditions('viewer', { udpBlocked: true });
    expect((await lab.udpBurst('viewer', 'stage', 500)).received).toBe(0);
    expect((await lab.udpBurst('stage', 'vm', 500)).received).toBe(500);
    expect(await lab.tcpReaches('viewer', 'stage')).toBe(true);
  });

  describe('Chromium and Tailcam in the lab', () => {
    let browser: Browser | undefined;
    afterEach(async () => {
      await browser?.close();
      browser = undefined;
    });

    async function viewerBrowser(): Promise<Browser> {
      browser = await chromium.launch({
        executablePath: lab.chromiumExecutable('viewer', chromiumExecutable()),
        args: CHROMIUM_ARGS,
      });
      return browser;
    }

    it('runs Chromium behind NAT, loading a page from the public segment', async () => {
      const served = lab.spawn('stage', support.ok ? support.tools.python3 : 'python3', [
        '-m',
        'http.server',
        '--bind',
        lab.addresses.stage,
        '--directory',
        import.meta.dirname,
        '8000',
      ]);
      let log = '';
      served.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
      const page = await (await viewerBrowser()).newPage();
      await expect
        .poll(async () => {
          const response = await page.goto(`http://${lab.addresses.stage}:8000/`).catch(() => null);
          return response?.status();
        })
        .toBe(200);
      expect(await page.content()).toContain('probe.mjs');
      // The server saw the NAT router's address, not the viewer's.
      expect(log).toContain(lab.addresses.natPublic);
      expect(log).not.toContain(lab.addresses.viewer);
    }, 60_000);

    it.each<[ProductHost, string]>([
      ['stage', 'on the public segment'],
      ['vm', 'behind 1:1 NAT'],
    ])(
      'starts Tailcam in %s (%s) and opens it in Chromium behind NAT',
      async (host) => {
        let product: Product | undefined;
        try {
          const started = await labProduct(lab, host, {
            name: `lab-${host}`,
            port: 8080,
            stagePort: 8091,
            logFile: join(tmpdir(), `tailcam-lab-${host}-${process.pid}.log`),
          });
          product = started.product;
          await product.start();
          const page = await (await viewerBrowser()).newPage();
          const response = await page.goto(started.publicUrl);
          expect(response?.ok()).toBe(true);
          await expect
            .poll(() => page.locator('input[type="password"]').count())
            .toBeGreaterThan(0);
        } finally {
          await product?.dispose();
        }
      },
      180_000,
    );

    it('lets a viewer behind NAT watch a camera of a stage on the public segment', async () => {
      let product: Product | undefined;
      try {
        const started = await startLabProduct(lab, 'stage', 'lab-watch');
        product = started.product;
        const { loginToken } = started;
        // Plain http on a lab address, no secure context: the app works there (decision 0062).
        const page = await (await viewerBrowser()).newPage();
        await signIn(page, loginToken);
        const openedAt = performance.now();
        await page.goto(`${started.publicUrl}/player/N743AS`);
        const frames = () => playback(page).then(({ frames }) => frames);
        await expect.poll(frames, { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
        const firstFrameMs = performance.now() - openedAt;
        await expect.poll(frames, { timeout: 30_000 }).toBeGreaterThan(30);
        const { sockets, peerConnections } = await product.stage.stats();
        console.log(
          `[lab] viewer behind NAT → stage on the public segment: first frame ${Math.round(firstFrameMs)} ms ` +
            `after opening the player; the stage holds ${sockets} socket, ${peerConnections} peer connection`,
        );
        expect({ sockets, peerConnections }).toEqual({ sockets: 1, peerConnections: 1 });
      } finally {
        await product?.dispose();
      }
    }, 180_000);
  });
});
