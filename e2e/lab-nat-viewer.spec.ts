/**
 * The network lab's one short case in every `npm test` (decision 0064): Tailcam started on the lab's
 * public segment (198.18.1.2), and a viewer behind the lab's masquerading NAT router signs in
 * through the form over plain http, moves the pointer (the page joins every stream on standby, its
 * connections through the NAT), opens N743AS and watches it over WebRTC, Chromium running in the
 * viewer's namespace. The long cases (1:1 NAT, UDP blocked through TURN, WHIP, WHEP) are
 * harness/src/lab/real-networks.long.test.ts. Where the lab cannot be built (not root, no
 * namespaces, a tool missing) it says so loudly and skips.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumExecutable } from '@tailcam/harness/chromium';
import { labProduct } from '@tailcam/harness/lab-product';
import { labSkippedBanner, labSupport } from '@tailcam/harness/lab-support';
import { NetworkLab } from '@tailcam/harness/network-lab';
import { playback } from '@tailcam/harness/player';
import type { Product } from '@tailcam/harness/product';
import { arrive } from '@tailcam/harness/arrival';
import { expect, expectVideoPlaying, test } from './support/fixtures';

const VIEWER = { username: 'nat-viewer', password: 'nat viewer password 1' };
const support = labSupport();
if (!support.ok) console.warn(labSkippedBanner('lab-nat-viewer.spec.ts', support.reason));

let lab: NetworkLab | undefined;
let product: Product | undefined;
let browser: Browser | undefined;

test.afterEach(async () => {
  await browser?.close();
  await product?.dispose();
  await lab?.dispose();
});

test('a viewer behind NAT signs in over plain http, opens N743AS and watches it', async () => {
  test.skip(!support.ok, support.ok ? '' : `SKIPPED: ${support.reason}`);
  test.setTimeout(60_000);
  const startedAt = performance.now();
  lab = NetworkLab.create();
  const started = await labProduct(lab, 'stage', {
    name: 'lab-nat-viewer',
    port: 8080,
    stagePort: 8091,
    logFile: join(tmpdir(), `tailcam-lab-nat-viewer-${process.pid}.log`),
  });
  product = started.product;
  product.addViewer(VIEWER);
  await product.start();
  browser = await chromium.launch({
    executablePath: lab.chromiumExecutable('viewer', chromiumExecutable()),
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ baseURL: started.publicUrl });
  await page.goto('/');
  await page.getByLabel('Username').fill(VIEWER.username);
  await page.getByLabel('Password').fill(VIEWER.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/home$/);
  // A person's pointer arrives: the page joins the three streams on standby through the NAT
  // (decision 0112), and the click below shows one of them.
  await arrive(page.mouse);
  await expect
    .poll(async () => {
      const { sockets, peerConnections } = await started.product.stage.stats();
      return { sockets, peerConnections };
    })
    .toEqual({ sockets: 3, peerConnections: 3 });
  const openedAt = performance.now();
  await page.getByRole('link', { name: /N743AS/ }).click();
  await expect
    .poll(async () => (await playback(page)).frames, { timeout: 20_000, intervals: [50] })
    .toBeGreaterThan(0);
  const firstFrameMs = Math.round(performance.now() - openedAt);
  await expectVideoPlaying(page);
  // The stage saw the viewer as the NAT router's public address, one peer connection: the
  // standby joins of the other two streams left with the page.
  await expect
    .poll(async () => {
      const { sockets, peerConnections } = await started.product.stage.stats();
      return { sockets, peerConnections };
    })
    .toEqual({ sockets: 1, peerConnections: 1 });
  console.log(
    `[lab] viewer behind NAT, through the app: first frame ${firstFrameMs} ms after opening ` +
      `N743AS (its join on standby, the camera's first key frame included); the case took ` +
      `${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  );
});
