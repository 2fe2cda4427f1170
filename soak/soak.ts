/**
 * `npm run soak` (after `npm run build`): up to 10 concurrent Chromium viewers, 300 joins and
 * leaves over about 5 minutes, on an instance of Tailcam of its own (ports 48280/48291, its log
 * in the temporary directory). Prints the figures as JSON (docs/reliability.md has the last ones)
 * and exits 1 on a leak or an error.
 *
 *   npm run soak -- --viewers 10 --joins 300 --minutes 5
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runSoak } from './soak-run';

const { values } = parseArgs({
  options: {
    viewers: { type: 'string', default: '10' },
    joins: { type: 'string', default: '300' },
    minutes: { type: 'string', default: '5' },
    out: { type: 'string' },
  },
});

const viewers = Math.min(10, Math.max(1, Number(values.viewers)));
const joins = Math.min(1000, Math.max(1, Number(values.joins)));
const minutes = Math.min(30, Math.max(0.5, Number(values.minutes)));
// Dwell so that `joins` spread over the time: each viewer does joins/viewers rounds.
const roundMs = (minutes * 60_000 * viewers) / joins;
const dwellMs: [number, number] = [Math.max(500, roundMs * 0.5), Math.max(1_000, roundMs * 0.9)];

console.log(
  `[soak] ${viewers} viewers, ${joins} joins, up to ${minutes} min (dwell ${Math.round(dwellMs[0])}-${Math.round(dwellMs[1])} ms)`,
);
const result = await runSoak({
  name: 'soak',
  port: 48280,
  stagePort: 48291,
  logFile: join(tmpdir(), 'tailcam-soak-48280.log'),
  viewers,
  joins,
  durationMs: minutes * 60_000 * 1.5,
  dwellMs,
  closePageEvery: 10,
  log: (line) => console.log(`[soak] ${line}`),
});
const text = JSON.stringify(result, null, 2);
console.log(text);
if (values.out) writeFileSync(values.out, `${text}\n`);

const problems = [
  result.failedJoins.length > 0 && `${result.failedJoins.length} joins did not play`,
  result.leavesWithLeftovers > 0 &&
    `${result.leavesWithLeftovers} leaves left connections or listeners in the page`,
  result.pageErrors.length > 0 && `${result.pageErrors.length} page errors`,
  result.serverErrorLines.length > 0 &&
    `${result.serverErrorLines.length} error lines in the server logs`,
  result.finalStage.sockets + result.finalStage.peerConnections + result.finalStage.participants >
    0 && 'the stage still holds viewers after all left',
].filter(Boolean);
if (problems.length > 0) {
  console.error(`[soak] FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(
  `[soak] passed: ${result.joins} joins, ${result.leaves} leaves in ${Math.round(result.durationMs / 1000)} s; stage RSS ${result.rssMiB.start} → ${result.rssMiB.peak} (peak) → ${result.rssMiB.end} MiB`,
);
