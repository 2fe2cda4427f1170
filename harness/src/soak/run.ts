/**
 * The soak: viewers (Chromium, or Firefox: viewer-pages.ts) joining and leaving streams on an instance of Tailcam of its own,
 * through the real app and SDK, while the local stage's /_stats is sampled. What it measures:
 * joins that played, leaks (peer connections, sockets and SDK listeners left behind, in the page
 * after each in-app leave and on the stage at the end), errors (page errors, console errors,
 * error lines in the API and stage logs) and the stage's memory. Around the viewers, optionally:
 * a 'Watch all' tab open throughout, the camera process killed with SIGKILL every few minutes
 * (the start script restarts it), and a browser WHIP publisher coming and going on one aircraft;
 * and throughout, each process's memory and whether the forwarding process (the stage) ever
 * restarted. `npm run soak` runs the long version (soak/soak.ts); e2e/soak.spec.ts a short one
 * that asserts the counts.
 *
 * Its parts: instruments.ts (what is measured), viewers.ts (the joins and leaves), churn.ts (the
 * camera kills and the WHIP publisher) and report.ts (the result).
 */
import type { Browser } from '@playwright/test';
import { launchChromium } from '../chromium';
import { pollUntil } from '../poll';
import { Product } from '../product';
import { loadAverage } from '../load-average';
import { churnWhipPublisher, killCameras } from './churn';
import type { SoakOptions, SoakRun } from './context';
import { Sampler } from './instruments';
import { leftOnStage, soakReport, type SoakResult } from './report';
import { launchViewerBrowser, type ViewerBrowser, type ViewerPage } from './viewer-pages';
import { openWatchAll, runViewers, tilesPlayingAtEnd } from './viewers';

export type { SoakOptions, SoakResult };

const VIEWER = { username: 'soak-viewer', password: 'soak viewer password 1' };

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const product = new Product({
    name: options.name,
    port: options.port,
    stagePort: options.stagePort,
    logFile: options.logFile,
    env: options.env,
  });
  let run: SoakRun | undefined;
  let sampler: Sampler | undefined;
  let chromium: Browser | undefined;
  let viewerBrowser: ViewerBrowser | undefined;
  try {
    product.addViewer(VIEWER);
    await product.start();
    chromium = await launchChromium();
    viewerBrowser = await launchViewerBrowser(options.browser ?? 'chromium');
    run = {
      options,
      product,
      loginToken: await product.loginToken(VIEWER),
      browser: chromium,
      viewerBrowser,
      started: Date.now(),
      log: options.log ?? (() => {}),
      pageErrors: [],
      consoleErrors: [],
      cameraKillTimes: [],
      viewersDone: false,
    };
    const loadAtStart = loadAverage();
    sampler = new Sampler(product, run.started);
    await sampler.sample();
    sampler.start();

    const watchAllFailures: string[] = [];
    let watchAll: ViewerPage | undefined;
    if (options.multiView) watchAll = await openWatchAll(run, watchAllFailures);
    const cameraKills = killCameras(run, options.cameraKillEveryMs);
    const whipPublisher = churnWhipPublisher(run, options.whipPublisherEveryMs);
    const viewers = await runViewers(run, sampler.stageSamples);
    viewers.failedJoins.unshift(...watchAllFailures);
    run.viewersDone = true;
    const churn = { cameraKills: await cameraKills, whipPublisher: await whipPublisher };
    const multiViewTilesPlayingAtEnd = watchAll && (await tilesPlayingAtEnd(run, watchAll));
    await watchAll?.close();
    const durationMs = Date.now() - run.started;
    await sampler.stop();

    // Every viewer has gone: the stage must come back to nothing, every count the report checks
    // (the thumbnail process's sessions end 4 s after the viewers' /home asked for its last
    // picture; a camera's listeners go a moment after the last connection).
    let finalStats = await sampler.sample();
    await pollUntil(async () => {
      finalStats = await sampler!.sample();
      return Object.values(leftOnStage(finalStats)).every((count) => count === 0);
    }, 15_000);
    return soakReport({
      browser: `${viewerBrowser.name} ${viewerBrowser.version}`,
      durationMs,
      viewers,
      sampler,
      finalStats,
      ...churn,
      multiViewTilesPlayingAtEnd,
      pageErrors: run.pageErrors,
      consoleErrors: run.consoleErrors,
      logFile: product.logFile,
      loadAverage: { start: loadAtStart, end: loadAverage() },
    });
  } finally {
    if (run) run.viewersDone = true; // the churn stops too when the run fails
    await sampler?.stop();
    await viewerBrowser?.close();
    await chromium?.close();
    await product.dispose();
  }
}
