/**
 * The soak's viewers: each a page of the real app (in Chromium or Firefox: viewer-pages.ts), joining the aircraft in turn through
 * its cards (every other join after the pointer moved on the page a moment before, as a person's
 * hand arrives, so that it takes a join on standby), watching a random while, and leaving by the app's Back link (every n-th time by
 * closing the tab), with what each leave left open counted in the page; and the 'Watch all' tab
 * open beside them.
 */
import { pollUntil } from '../poll';
import { signInScript } from '../sign-in';
import { allOnAir, elapsed, type SoakRun } from './context';
import {
  inPageCounts,
  instrumentsScript,
  NO_COUNTS,
  videosPlaying,
  waitForPlayback,
  watchStageListeners,
  type InPageCounts,
  type StageSample,
} from './instruments';
import type { ViewerPage } from './viewer-pages';

const STREAMS = ['N743AS', 'N953AS', 'N954AS'] as const;

export interface ViewerTally {
  joins: number;
  leaves: number;
  failedJoins: string[];
  /** Joins clicked after the pointer moved on the page: the app had joined on standby. */
  joinsAfterArrival: number;
  /** Joins that played only once the camera process, killed on purpose, was back on air. */
  joinsDuringCameraRestart: string[];
  joinMs: number[];
  /** The smallest in-page counts seen while a video played: proves the instruments count. */
  whilePlaying: InPageCounts | undefined;
  /** The largest in-page counts seen once a leave through the app had settled (all should be 0). */
  worstAfterLeave: InPageCounts;
  leavesWithLeftovers: number;
}

/** How long after the pointer moves the click comes, in a join after a person's arrival. */
const ARRIVAL_MS: [number, number] = [200, 1_500];

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

const randomBetween = ([min, max]: [number, number]) => min + Math.random() * (max - min);

const least = (a: InPageCounts | undefined, b: InPageCounts): InPageCounts => ({
  openPeerConnections: Math.min(a?.openPeerConnections ?? Infinity, b.openPeerConnections),
  openSockets: Math.min(a?.openSockets ?? Infinity, b.openSockets),
  stageListeners: Math.min(a?.stageListeners ?? Infinity, b.stageListeners),
});

const most = (a: InPageCounts, b: InPageCounts): InPageCounts => ({
  openPeerConnections: Math.max(a.openPeerConnections, b.openPeerConnections),
  openSockets: Math.max(a.openSockets, b.openSockets),
  stageListeners: Math.max(a.stageListeners, b.stageListeners),
});

/** A signed-in, instrumented page on /home, its errors recorded. */
async function openPage(run: SoakRun): Promise<ViewerPage> {
  const page = await run.viewerBrowser.newPage(
    [await instrumentsScript(), signInScript(run.loginToken)],
    {
      pageError: (message) => run.pageErrors.push(message),
      consoleError: (text) => run.consoleErrors.push(text),
    },
  );
  await page.goto(`${run.product.baseUrl}/home`);
  await watchStageListeners(page);
  return page;
}

/** Runs `options.viewers` viewers until the joins (and the minimum time) are done. */
export async function runViewers(run: SoakRun, stageSamples: StageSample[]): Promise<ViewerTally> {
  const { options } = run;
  const tally: ViewerTally = {
    joins: 0,
    leaves: 0,
    failedJoins: [],
    joinsAfterArrival: 0,
    joinsDuringCameraRestart: [],
    joinMs: [],
    whilePlaying: undefined,
    worstAfterLeave: NO_COUNTS,
    leavesWithLeftovers: 0,
  };
  const deadline = run.started + options.durationMs;
  const minEnd = run.started + (options.minDurationMs ?? 0);
  const moreToDo = () =>
    (tally.joins < options.joins || Date.now() < minEnd) && Date.now() < deadline;

  /** Whether the join that gave up at `joinEnded` still plays once the cameras are back. */
  const heldUpByCameraKill = async (page: ViewerPage, joinStarted: number, joinEnded: number) =>
    // A kill of the camera process in the 30 s before the join gave up took the picture away on
    // purpose; its restart, with the start script's backoff, can take longer than the wait on a
    // busy machine. Such a join must still play once every aircraft is on air again, in the
    // same page ('Waiting for video', then the picture): only then it counts as played.
    run.cameraKillTimes.some((at) => at >= joinStarted - 30_000 && at <= joinEnded) &&
    (await pollUntil(() => allOnAir(run), 60_000)) &&
    (await waitForPlayback(page, 20_000));

  const viewer = async (slot: number) => {
    let page = await openPage(run);
    for (let round = 0; moreToDo(); round += 1) {
      const streamId = STREAMS[(slot + round) % STREAMS.length]!;
      tally.joins += 1;
      const afterArrival = round % 2 === 1;
      if (afterArrival) {
        // Long enough for the joins on standby to be under way, or done (decision 0112).
        await page.movePointer();
        await wait(randomBetween(ARRIVAL_MS));
        tally.joinsAfterArrival += 1;
      }
      const joinStarted = Date.now();
      await page.clickLink(new RegExp(streamId));
      if (await waitForPlayback(page, 20_000)) {
        tally.joinMs.push(Date.now() - joinStarted);
        let counts = await inPageCounts(page);
        // Between a publisher leaving and the next one joining (N954AS's changes every few
        // seconds here) the player holds no peer connection for a moment: read again. A camera
        // killed just after the picture came can keep it without one for longer (its restart on
        // a busy machine): that join's counts are not a reading of the instruments.
        for (let tries = 0; counts.openPeerConnections === 0 && tries < 50; tries += 1) {
          await wait(100);
          counts = await inPageCounts(page);
        }
        if (counts.openPeerConnections > 0) tally.whilePlaying = least(tally.whilePlaying, counts);
      } else {
        const how = afterArrival ? ', after the pointer moved' : '';
        const what = `viewer ${slot}, join ${round}, ${streamId}${how} (${await whatThePageShows(page)})`;
        if (await heldUpByCameraKill(page, joinStarted, Date.now())) {
          tally.joinsDuringCameraRestart.push(what);
        } else {
          tally.failedJoins.push(what);
        }
      }
      await wait(randomBetween(options.dwellMs));
      tally.leaves += 1;
      if (tally.leaves % options.closePageEvery === 0) {
        // An abrupt leave: the tab goes while the video plays; the stage must notice alone.
        await page.close();
        page = await openPage(run);
        continue;
      }
      await page.clickLink(/Back/);
      await pollUntil(async () => /\/home$/.test(await page.path()), 30_000);
      const settled = await pollUntil(async () => {
        const counts = await inPageCounts(page);
        return counts.openPeerConnections + counts.openSockets + counts.stageListeners === 0;
      }, 5_000);
      if (!settled) {
        tally.leavesWithLeftovers += 1;
        tally.worstAfterLeave = most(tally.worstAfterLeave, await inPageCounts(page));
      }
      if (tally.leaves % 25 === 0) {
        const last = stageSamples.at(-1);
        run.log(
          `${elapsed(run)}: ${tally.joins} joins, ${tally.leaves} leaves, stage ${last?.peerConnections} peer connections, ${last?.rssMiB} MiB`,
        );
      }
    }
    await page.close();
  };

  await Promise.all(Array.from({ length: options.viewers }, (_, slot) => viewer(slot)));
  return tally;
}

/** The 'Watch all' tab, open until closed; a failure to play its three tiles is recorded. */
export async function openWatchAll(run: SoakRun, failedJoins: string[]): Promise<ViewerPage> {
  const page = await run.viewerBrowser.newPage(
    [await instrumentsScript(), signInScript(run.loginToken)],
    {
      pageError: (message) => run.pageErrors.push(`watch-all: ${message}`),
      consoleError: () => {},
    },
  );
  await page.goto(`${run.product.baseUrl}/watch-all`);
  if (!(await pollUntil(async () => (await videosPlaying(page)) === 3, 30_000))) {
    failedJoins.push('the Watch all tab did not play its three tiles');
  }
  return page;
}

/**
 * Once the churn has stopped and every aircraft is on air again, how many of the tab's tiles
 * play (the tiles' own reconnects and 'Waiting for video' brought them through the churn).
 */
export async function tilesPlayingAtEnd(
  run: SoakRun,
  tab: ViewerPage,
): Promise<number | undefined> {
  let playing: number | undefined;
  await pollUntil(() => allOnAir(run), 60_000);
  await pollUntil(async () => {
    playing = await videosPlaying(tab);
    return playing === 3;
  }, 20_000);
  await tab.screenshot(`${run.options.logFile}.watch-all.png`);
  return playing;
}

/** Where a join that did not play stands, as its viewer sees it: the path and any notice. */
async function whatThePageShows(page: ViewerPage): Promise<string> {
  const path = await page.path();
  const notices = await page
    .evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[role="alert"], [role="status"]')].map(
        (element) => element.innerText,
      ),
    )
    .catch(() => []);
  const shown = notices.map((text) => text.trim().replace(/\s+/g, ' ')).filter(Boolean);
  // What the SDK had: its peer connections' states, and the video's frames and time.
  const media = await page
    .evaluate(() => ({
      peers: window.TailcamSoak.peerStates(),
      playback: window.TailcamSoak.playback(),
    }))
    .catch(() => undefined);
  const peers = media ? `peers [${media.peers.join(', ')}]` : 'peers unknown';
  const video = media?.playback
    ? `video ${media.playback.frames} frames at ${media.playback.time.toFixed(1)} s`
    : 'no video';
  return `at ${path}${shown.length > 0 ? `, showing ${shown.map((text) => `'${text}'`).join(', ')}` : ', no notice'}; ${peers}; ${video}; ${new Date().toISOString()}`;
}
