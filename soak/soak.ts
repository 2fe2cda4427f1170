/**
 * `npm run soak` (after `npm run build`): viewers joining and leaving, in Chromium or (with
 * `--browser=firefox`) Debian's Firefox ESR, on an instance of Tailcam of its own (ports
 * 29280/29291, its log in the temporary directory), with a 'Watch all' tab open throughout, the camera process killed every few minutes and a browser WHIP publisher
 * coming and going on N954AS. Prints the figures as JSON (docs/reliability.md has the last ones)
 * and exits 1 on a leak, an error, a failed join or a restart of the stage.
 *
 *   npm run soak -- --minutes=30 --viewers=6 --joins=600 --camera-kill-minutes=4 --whip-seconds=120
 *   npm run soak -- --minutes=10 --malloc-arena-max=2   (the environment of every process)
 *   npm run soak -- --minutes=10 --browser=firefox      (the WHIP publisher stays Chromium's)
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runSoak } from '@tailcam/harness/soak';

const { values } = parseArgs({
  options: {
    viewers: { type: 'string', default: '6' },
    joins: { type: 'string', default: '300' },
    minutes: { type: 'string', default: '5' },
    'camera-kill-minutes': { type: 'string', default: '4' },
    'whip-seconds': { type: 'string', default: '120' },
    'multi-view': { type: 'string', default: 'yes' },
    'malloc-arena-max': { type: 'string' },
    browser: { type: 'string', default: 'chromium' },
    out: { type: 'string' },
  },
});

const browser = values.browser;
if (browser !== 'chromium' && browser !== 'firefox') {
  console.error(`[soak] --browser must be chromium or firefox, not '${browser}'`);
  process.exit(2);
}
const viewers = Math.min(10, Math.max(1, Number(values.viewers)));
const joins = Math.min(2000, Math.max(1, Number(values.joins)));
const minutes = Math.min(60, Math.max(0.5, Number(values.minutes)));
// Dwell so that `joins` spread over the time: each viewer does joins/viewers rounds.
const roundMs = (minutes * 60_000 * viewers) / joins;
const dwellMs: [number, number] = [Math.max(500, roundMs * 0.5), Math.max(1_000, roundMs * 0.9)];
const cameraKillEveryMs = Number(values['camera-kill-minutes']) * 60_000 || undefined;
const whipPublisherEveryMs = Number(values['whip-seconds']) * 1_000 || undefined;

console.log(
  `[soak] ${viewers} ${browser} viewers, at least ${joins} joins and ${minutes} min, at most ${minutes * 1.5} min (dwell ${Math.round(dwellMs[0])}-${Math.round(dwellMs[1])} ms); ` +
    `Watch all tab: ${values['multi-view'] !== 'no' ? 'yes' : 'no'}; camera process killed every ${cameraKillEveryMs ? `${cameraKillEveryMs / 60_000} min` : 'never'}; ` +
    `WHIP publisher every ${whipPublisherEveryMs ? `${whipPublisherEveryMs / 1000} s` : 'never'}` +
    (values['malloc-arena-max'] ? `; MALLOC_ARENA_MAX=${values['malloc-arena-max']}` : ''),
);
const result = await runSoak({
  name: 'soak',
  port: 29280,
  stagePort: 29291,
  logFile: join(tmpdir(), 'tailcam-soak-29280.log'),
  viewers,
  browser,
  joins,
  durationMs: minutes * 60_000 * 1.5,
  // --minutes is how long the run lasts at least; --joins, how many joins at least.
  minDurationMs: minutes * 60_000,
  dwellMs,
  closePageEvery: 10,
  multiView: values['multi-view'] !== 'no',
  cameraKillEveryMs,
  whipPublisherEveryMs,
  env: values['malloc-arena-max'] ? { MALLOC_ARENA_MAX: values['malloc-arena-max'] } : undefined,
  log: (line) => console.log(`[soak] ${line}`),
});
const { stageSamples, ...summary } = result;
const text = JSON.stringify(
  { ...summary, stageSamples: stageSamples.filter((_, index) => index % 15 === 0) },
  null,
  2,
);
console.log(text);
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);

const problems = [
  result.failedJoins.length > 0 && `${result.failedJoins.length} joins did not play`,
  result.leavesWithLeftovers > 0 &&
    `${result.leavesWithLeftovers} leaves left connections or listeners in the page`,
  result.pageErrors.length > 0 && `${result.pageErrors.length} page errors`,
  result.serverErrorLines.length > 0 &&
    `${result.serverErrorLines.length} error lines in the server logs`,
  result.finalStage.sockets + result.finalStage.peerConnections + result.finalStage.participants >
    0 && 'the stage still holds viewers after all left',
  result.stageRestarts > 0 &&
    `the stage (forwarding process) restarted ${result.stageRestarts} times`,
  result.whipPublisher.failures.length > 0 &&
    `WHIP publisher: ${result.whipPublisher.failures.join('; ')}`,
  result.multiViewTilesPlayingAtEnd !== undefined &&
    result.multiViewTilesPlayingAtEnd < 3 &&
    `the Watch all tab plays ${result.multiViewTilesPlayingAtEnd} of 3 tiles at the end`,
].filter(Boolean);
if (problems.length > 0) {
  console.error(`[soak] FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
const rss = result.processRssMiB;
console.log(
  `[soak] passed (${result.browser}): ${result.joins} joins (${result.joinsAfterArrival} after the pointer moved), ${result.leaves} leaves in ${Math.round(result.durationMs / 1000)} s; ` +
    `0 stage restarts; ${result.cameraKills} camera process kills (${result.joinsDuringCameraRestart.length} joins waited past 20 s for its restart); WHIP publisher on air ${result.whipPublisher.onAir} of ${result.whipPublisher.sessions}; ` +
    `RSS MiB (start → peak → end): stage ${rss.stage.start} → ${rss.stage.peak} → ${rss.stage.end}, ` +
    `cameras ${rss.cameras.start} → ${rss.cameras.peak} → ${rss.cameras.end}, api ${rss.api.start} → ${rss.api.peak} → ${rss.api.end}; ` +
    `load ${result.loadAverage.start} → ${result.loadAverage.end}`,
);
