/**
 * A reporter that prints, at the end of a run, when each project's lane began and ended (seconds
 * from the reporter's start, the global setup's product start before them; an end is when the
 * runner heard of the lane's last test's end) and how much of it its tests took (not their
 * `beforeAll` product starts): the figures that balance the two lanes
 * (docs/development.md#how-npm-test-spends-its-time).
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

interface Lane {
  beganAtMs: number;
  endedAtMs: number;
  testsMs: number;
  tests: number;
}

export default class LaneTimes implements Reporter {
  private readonly startedAtMs = Date.now();
  private readonly lanes = new Map<string, Lane>();

  onTestEnd(test: TestCase, result: TestResult): void {
    const name = test.parent.project()?.name ?? '(no project)';
    const began = result.startTime.getTime();
    const lane = this.lanes.get(name) ?? { beganAtMs: began, endedAtMs: 0, testsMs: 0, tests: 0 };
    lane.beganAtMs = Math.min(lane.beganAtMs, began);
    lane.endedAtMs = Math.max(lane.endedAtMs, Date.now());
    lane.testsMs += result.duration;
    lane.tests += 1;
    this.lanes.set(name, lane);
  }

  onEnd(result: FullResult): void {
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const lines = [...this.lanes].map(
      ([name, lane]) =>
        `  ${name}: ${seconds(lane.beganAtMs - this.startedAtMs)} → ${seconds(lane.endedAtMs - this.startedAtMs)} s; its ${lane.tests} tests ${seconds(lane.testsMs)} s`,
    );
    console.log(
      `\n[lanes] ${seconds(result.duration)} s in all; each project's first test's start → its last one's end:\n${lines.join('\n')}`,
    );
  }

  printsToStdio(): boolean {
    return false;
  }
}
