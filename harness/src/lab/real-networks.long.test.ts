// Real networks in real browsers (decision 0062): Tailcam's local stage watched and published through the lab's
// NAT, 1:1 NAT and blocked UDP, behind TAILCAM_LONG_TESTS=1. Each case measures session → first
// frame and the same from a browser on the stage's own host (its traffic stays in the kernel, as
// loopback's does), and prints both with the link's measured conditions (docs/benchmarks.md,
// weak links). Plain http on lab addresses: no secure-context flag, the app works
// there. The WHIP and WHEP pages are served to their browser by Playwright (page.route) on an
// origin of their own, treated as secure for getUserMedia, as an operator's https page would be.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { operatorToken } from '../operator-token';
import { bundleForPage } from '../page-scripts';
import { playback } from '../player';
import { ROOT, type Product } from '../product';
import { signIn } from '../sign-in';
import { whepPlayer, whipPublisher } from '../third-party-pages';
import { LabBrowsers, startLabProduct } from './lab-fixtures';
import type { ProductHost } from './lab-product';
import { labSkippedBanner, labSupport } from './lab-support';
import type { LabNamespace } from './lab-topology';
import { NetworkLab } from './network-lab';

const LONG = process.env.TAILCAM_LONG_TESTS === '1';
const support = labSupport();
const TURNSERVER = '/usr/bin/turnserver';
const WHIP_CLIENT = join(ROOT, 'node_modules', '.cache', 'tailcam-whip-client', 'whip-client');
const TURN_SECRET = 'a-lab-coturn-static-auth-secret-of-enough-length';
const PAGES_ORIGIN = 'http://pages.tailcam.test';
/** First-frame samples per figure, after a warm-up. */
const SAMPLES = 3;
if (!LONG) {
  console.log('[lab] the real-network cases are skipped: set TAILCAM_LONG_TESTS=1 to run them.');
} else if (!support.ok) {
  console.warn(labSkippedBanner('the real-network cases', support.reason));
} else if (!existsSync(TURNSERVER)) {
  console.warn(
    labSkippedBanner(
      'the UDP-blocked viewer through TURN',
      `${TURNSERVER}: apt-get install coturn`,
    ),
  );
}

/** Every peer connection the page makes, kept on `window` for selectedCandidate. */
function recordPeerConnections(): void {
  const Native = window.RTCPeerConnection;
  const made: RTCPeerConnection[] = [];
  Object.assign(window, { labPeers: made });
  window.RTCPeerConnection = class extends Native {
    constructor(configuration?: RTCConfiguration) {
      super(configuration);
      made.push(this);
    }
  };
}

const candidate = z.object({
  candidateType: z.string().optional(),
  relayProtocol: z.string().optional(),
  protocol: z.string().optional(),
});

/** The local candidate of the connected peer connection's selected pair. */
async function selectedCandidate(page: Page): Promise<z.infer<typeof candidate> | undefined> {
  const found = await page.evaluate(async () => {
    const { labPeers } = window as unknown as { labPeers: RTCPeerConnection[] };
    const connected = labPeers.find((peer) => peer.connectionState === 'connected');
    if (connected === undefined) return undefined;
    const stats = new Map<string, Record<string, unknown>>();
    (await connected.getStats()).forEach((entry: Record<string, unknown>) =>
      stats.set(String(entry.id), entry),
    );
    const transport = [...stats.values()].find((entry) => entry.type === 'transport');
    const pair = stats.get(String(transport?.selectedCandidatePairId));
    return stats.get(String(pair?.localCandidateId)) ?? {};
  });
  return found === undefined ? undefined : candidate.parse(found);
}

describe.skipIf(!LONG || !support.ok)('Tailcam through real networks', () => {
  let lab: NetworkLab;
  const browsers = new LabBrowsers();
  const products: Product[] = [];
  let turnDir: string | undefined;
  const figures: string[] = [];

  beforeAll(() => {
    lab = NetworkLab.create();
  });
  afterEach(async () => {
    await browsers.closeAll();
    for (const link of ['viewer', 'publisher'] as const) await lab.setConditions(link, {});
  });
  afterAll(async () => {
    for (const product of products.splice(0)) await product.dispose();
    await lab?.dispose();
    if (turnDir !== undefined) rmSync(turnDir, { recursive: true, force: true });
    console.log(`[lab] real networks, figures:\n${figures.join('\n')}`);
  });

  const browserIn = (role: LabNamespace, extraArgs: string[] = []) =>
    browsers.launch(lab, role, extraArgs);

  async function startProduct(host: ProductHost, name: string, env: NodeJS.ProcessEnv = {}) {
    const started = await startLabProduct(lab, host, name, env);
    products.push(started.product);
    return started;
  }

  async function stopProduct(product: Product) {
    products.splice(products.indexOf(product), 1);
    await product.dispose();
  }

  /** Opens the player on N743AS; ms from navigation to the first decoded frame. */
  async function watch(page: Page, publicUrl: string, loginToken: string): Promise<number> {
    await page.addInitScript(recordPeerConnections);
    await signIn(page, loginToken);
    const openedAt = performance.now();
    await page.goto(`${publicUrl}/player/N743AS`);
    const frames = () => playback(page).then(({ frames }) => frames);
    await expect.poll(frames, { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    const firstFrameMs = Math.round(performance.now() - openedAt);
    await expect.poll(frames, { timeout: 20_000 }).toBeGreaterThan(30);
    return firstFrameMs;
  }

  /**
   * First-frame times from `role`: a warm-up first (the first join also waits for the camera's
   * key frame), then `SAMPLES` joins, each on a page of its own; `firstFrameMs` is their median.
   */
  async function watchFrom(
    role: LabNamespace,
    publicUrl: string,
    loginToken: string,
  ): Promise<{ firstFrameMs: number; spread: string; page: Page }> {
    const browser = await browserIn(role);
    const warmUp = await browser.newPage();
    await watch(warmUp, publicUrl, loginToken);
    await warmUp.close();
    const times: number[] = [];
    let page = await browser.newPage();
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      if (sample > 0) {
        await page.close();
        page = await browser.newPage();
      }
      times.push(await watch(page, publicUrl, loginToken));
    }
    times.sort((a, b) => a - b);
    return {
      firstFrameMs: times[Math.floor(times.length / 2)]!,
      spread: `${times[0]}–${times[times.length - 1]}`,
      page,
    };
  }

  /** What the viewer's or publisher's link gives as the case runs: its conditions, RTT, loss. */
  async function linkFigure(from: 'viewer' | 'publisher', to: 'stage' | 'vm'): Promise<string> {
    const measured = await lab.measure(from, to, { figures: ['rtt', 'loss'], pings: 10 });
    return lab.describe(from, measured).replace(/^\[lab\] /, '');
  }

  function record(line: string) {
    figures.push(line);
    console.log(`[lab] ${line}`);
  }

  /** Serves a third-party page (WHIP or WHEP) to `page` on an origin of its own. */
  async function openThirdPartyPage(page: Page, entry: string, title: string) {
    const script = await bundleForPage(entry);
    const html =
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title>` +
      `<video autoplay muted playsinline></video><script>${script}</script>`;
    await page.route(`${PAGES_ORIGIN}/**`, (route) =>
      route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }),
    );
    await page.goto(`${PAGES_ORIGIN}/`);
  }

  describe('with the stage on the public segment', () => {
    let publicUrl: string;
    let loginToken: string;
    let product: Product;
    let coturn: ChildProcess | undefined;
    let coturnLog: string | undefined;

    beforeAll(async () => {
      const env: NodeJS.ProcessEnv = {};
      if (existsSync(TURNSERVER)) {
        turnDir = mkdtempSync(join(tmpdir(), 'tailcam-lab-coturn-'));
        coturnLog = join(turnDir, 'turnserver.log');
        // coturn on the public segment, beside the stage; `timeout` bounds it if we die.
        coturn = lab.spawn('stage', 'timeout', [
          '600',
          TURNSERVER,
          '-n',
          `--listening-ip=${lab.addresses.stage}`,
          `--relay-ip=${lab.addresses.stage}`,
          '--listening-port=3478',
          '--no-tls',
          '--no-dtls',
          '--use-auth-secret',
          `--static-auth-secret=${TURN_SECRET}`,
          '--realm=tailcam.test',
          '--no-cli',
          '--no-stdout-log',
          `--log-file=${coturnLog}`,
          '--simple-log',
          '--verbose',
          `--pidfile=${join(turnDir, 'turnserver.pid')}`,
          `--userdb=${join(turnDir, 'turndb')}`,
        ]);
        env.TURN_URLS = `turn:${lab.addresses.stage}:3478?transport=tcp`;
        env.TURN_SECRET = TURN_SECRET;
      }
      const started = await startProduct('stage', 'lab-public', env);
      ({ publicUrl, loginToken, product } = started);
    }, 150_000);
    afterAll(async () => {
      coturn?.kill('SIGTERM');
    });

    it('lets a viewer behind NAT sign in and watch N743AS in the app, as fast as on the stage host', async () => {
      const onHost = await watchFrom('stage', publicUrl, loginToken);
      expect((await selectedCandidate(onHost.page))?.candidateType).toBe('host');
      const behindNat = await watchFrom('viewer', publicUrl, loginToken);
      // The stage's host candidate, reached from behind the router: a direct path, no relay.
      expect((await selectedCandidate(behindNat.page))?.candidateType).not.toBe('relay');
      record(
        `app, viewer behind NAT: first frame ${behindNat.firstFrameMs} ms (${behindNat.spread}); ` +
          `stage host ${onHost.firstFrameMs} ms (${onHost.spread}); ${await linkFigure('viewer', 'stage')}`,
      );
    }, 150_000);

    it.skipIf(!existsSync(TURNSERVER))(
      'lets a viewer whose UDP is blocked watch N743AS through TURN over TCP',
      async () => {
        await lab.setConditions('viewer', { udpBlocked: true });
        expect((await lab.udpBurst('viewer', 'stage', 50)).received).toBe(0);
        const relayed = await watchFrom('viewer', publicUrl, loginToken);
        expect(await selectedCandidate(relayed.page)).toMatchObject({
          candidateType: 'relay',
          relayProtocol: 'tcp',
        });
        expect(readFileSync(coturnLog!, 'utf8')).toMatch(/ALLOCATE processed, success/);
        record(
          `app, viewer behind NAT with UDP blocked, TURN over TCP: first frame ` +
            `${relayed.firstFrameMs} ms (${relayed.spread}); ${await linkFigure('viewer', 'stage')}`,
        );
      },
      150_000,
    );

    it.skipIf(!existsSync(TURNSERVER))(
      'measures what TURN over TCP costs a distant viewer (40 ms each way, 8 Mbit/s)',
      async () => {
        const distant = { delayMs: 40, rateKbit: 8_000 };
        await lab.setConditions('viewer', distant);
        const direct = await watchFrom('viewer', publicUrl, loginToken);
        expect((await selectedCandidate(direct.page))?.candidateType).not.toBe('relay');
        const directLink = await linkFigure('viewer', 'stage');
        await lab.setConditions('viewer', { ...distant, udpBlocked: true });
        const relayed = await watchFrom('viewer', publicUrl, loginToken);
        expect(await selectedCandidate(relayed.page)).toMatchObject({
          candidateType: 'relay',
          relayProtocol: 'tcp',
        });
        record(
          `app, distant viewer behind NAT: first frame direct ${direct.firstFrameMs} ms ` +
            `(${direct.spread}); ${directLink}`,
        );
        record(
          `app, distant viewer behind NAT, UDP blocked, TURN over TCP: first frame ` +
            `${relayed.firstFrameMs} ms (${relayed.spread}); ${await linkFigure('viewer', 'stage')}`,
        );
      },
      150_000,
    );

    it('lets a WHEP player behind NAT play N743AS', async () => {
      const { url, token } = operatorToken('subscribe-token', 'N743AS', product.env);
      const firstFrame = async (role: LabNamespace) => {
        const page = await (await browserIn(role)).newPage();
        await openThirdPartyPage(page, 'harness/src/page/whep-player-page.ts', 'WHEP player');
        const startedAt = performance.now();
        await whepPlayer(page).start({ endpoint: url, token });
        const width = () =>
          page.locator('video').evaluate((video: HTMLVideoElement) => video.videoWidth);
        await expect.poll(width, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
        const ms = Math.round(performance.now() - startedAt);
        await whepPlayer(page).stop();
        return ms;
      };
      expect(new URL(url).host).toBe(new URL(publicUrl).host);
      const onHost = await firstFrame('stage');
      const behindNat = await firstFrame('viewer');
      record(
        `WHEP (Eyevinn player), behind NAT: POST → first frame ${behindNat} ms ` +
          `(stage host ${onHost} ms); ${await linkFigure('viewer', 'stage')}`,
      );
    }, 120_000);

    it('lets a WHIP publisher behind NAT (Chromium, Eyevinn client) publish N954AS, watched in the app', async () => {
      const { whipUrl, token } = product.publishToken('N954AS');
      const publish = async (role: LabNamespace) => {
        const browser = await browserIn(role, [
          `--unsafely-treat-insecure-origin-as-secure=${PAGES_ORIGIN}`,
        ]);
        const page = await browser.newPage();
        await openThirdPartyPage(page, 'harness/src/page/whip-publisher-page.ts', 'WHIP publisher');
        const client = whipPublisher(page);
        const startedAt = performance.now();
        await client.start({ endpoint: whipUrl, token, videoCodec: 'video/VP8' });
        await expect
          .poll(async () => (await product.stage.stats()).stages.N954AS?.publisher?.kind, {
            timeout: 20_000,
            interval: 50,
          })
          .toBe('encoder');
        const onAirMs = Math.round(performance.now() - startedAt);
        // A viewer on the stage's host sees the publisher's picture.
        const viewer = await (await browserIn('stage')).newPage();
        await signIn(viewer, loginToken);
        await viewer.goto(`${publicUrl}/player/N954AS`);
        await expect
          .poll(() => playback(viewer).then(({ frames }) => frames), { timeout: 30_000 })
          .toBeGreaterThan(10);
        expect((await client.state()).connectionState).toBe('connected');
        await client.stop();
        await expect
          .poll(async () => (await product.stage.stats()).stages.N954AS?.publisher?.kind, {
            timeout: 20_000,
          })
          .toBe('camera');
        return onAirMs;
      };
      const onHost = await publish('stage');
      const behindNat = await publish('publisher');
      record(
        `WHIP (Eyevinn client in Chromium), behind NAT: POST → on air at the stage ${behindNat} ms ` +
          `(stage host ${onHost} ms); ${await linkFigure('publisher', 'stage')}`,
      );
    }, 150_000);

    it.skipIf(!existsSync(WHIP_CLIENT))(
      "lets simple-whip-client behind NAT publish N953AS: the stage's publisher is the encoder",
      async () => {
        const { whipUrl, token } = product.publishToken('N953AS');
        const bars =
          'videotestsrc is-live=true pattern=smpte ! video/x-raw,width=640,height=360,framerate=15/1 ! ' +
          'videoconvert ! queue ! vp8enc deadline=1 ! rtpvp8pay pt=96 ! queue ! ' +
          'application/x-rtp,media=video,encoding-name=VP8,payload=96';
        const publishFrom = async (role: LabNamespace) => {
          const [command, args] = lab.command(role, 'timeout', [
            '60',
            WHIP_CLIENT,
            '-u',
            whipUrl,
            '-t',
            token,
            '-V',
            bars,
          ]);
          const client = spawn(command, args, { stdio: 'ignore' });
          try {
            const startedAt = performance.now();
            await expect
              .poll(async () => (await product.stage.stats()).stages.N953AS?.publisher?.kind, {
                timeout: 30_000,
                interval: 50,
              })
              .toBe('encoder');
            return Math.round(performance.now() - startedAt);
          } finally {
            client.kill('SIGTERM');
            await expect
              .poll(async () => (await product.stage.stats()).stages.N953AS?.publisher?.kind, {
                timeout: 20_000,
              })
              .toBe('camera');
          }
        };
        const onHost = await publishFrom('stage');
        const behindNat = await publishFrom('publisher');
        record(
          `WHIP (simple-whip-client), behind NAT: start → on air at the stage ${behindNat} ms ` +
            `(stage host ${onHost} ms)`,
        );
      },
      120_000,
    );

    afterAll(async () => {
      await stopProduct(product);
    }, 30_000);
  });

  describe('with the stage behind 1:1 NAT, knowing only its private address', () => {
    it('lets a viewer behind NAT watch when the stage announces its public address', async () => {
      const started = await startProduct('vm', 'lab-vm-announced', {
        STAGE_ANNOUNCED_ADDRESSES: lab.addresses.vmPublic,
        STAGE_ANNOUNCE_INTERFACES: '0',
      });
      const watched = await watchFrom('viewer', started.publicUrl, started.loginToken);
      expect((await selectedCandidate(watched.page))?.candidateType).not.toBe('relay');
      record(
        `app, viewer behind NAT, stage behind 1:1 NAT announcing ${lab.addresses.vmPublic}: ` +
          `first frame ${watched.firstFrameMs} ms (${watched.spread}); ${await linkFigure('viewer', 'vm')}`,
      );
      await stopProduct(started.product);
    }, 150_000);

    it('shows the error overlay within 15 s when it does not, not a black video without end', async () => {
      const started = await startProduct('vm', 'lab-vm-unannounced');
      const page = await (await browserIn('viewer')).newPage();
      await signIn(page, started.loginToken);
      const openedAt = performance.now();
      await page.goto(`${started.publicUrl}/player/N743AS`);
      await expect
        .poll(() => page.getByText('Stream Unavailable').count(), { timeout: 15_000 })
        .toBe(1);
      const shownMs = Math.round(performance.now() - openedAt);
      const overlay = await page.getByRole('alert').allInnerTexts();
      expect(overlay.join(' ')).toContain('could not reach this browser');
      // The browser cannot tell a wrong address from blocked UDP: the stage's log names the settings.
      await expect
        .poll(() => readFileSync(started.logFile, 'utf8'))
        .toContain('STAGE_ANNOUNCED_ADDRESSES');
      record(
        `app, stage behind 1:1 NAT without its public address: error overlay after ${shownMs} ms: ${overlay.join(' ').replace(/\s+/g, ' ')}`,
      );
      await stopProduct(started.product);
    }, 150_000);
  });
});
