/**
 * The feed's cursor against a stand-in stage whose answers the test writes: it resumes after its
 * saved cursor, says and counts the events a ring that overflowed no longer had, starts again from
 * the first event of a stage that restarted, and saves where it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StageEvent, StageEventsAnswer } from '@tailcam/protocol/stage-control';
import { stageTokenSecret, tempDir } from '../test/helpers';
import { startStandInStage } from '../test/stand-in-stage';
import type { DeliveredEvent } from './ivs-events';
import { OnAirWatch } from './on-air-watch';
import { OperationsStateStore } from './operations-state';
import { EVENT_FEED_FILE, StageEventFeed } from './stage-event-feed';

const feeds: StageEventFeed[] = [];
afterEach(async () => {
  for (const feed of feeds.splice(0)) await feed.close();
});

function events(run: string, from: number, to: number): StageEvent[] {
  return Array.from({ length: to - from + 1 }, (_, index) => ({
    seq: from + index,
    time: new Date(Date.UTC(2026, 10, 29, 12, 0, index)).toISOString(),
    stageId: 'N743AS',
    name: 'Participant Joined' as const,
    role: 'viewer' as const,
    participantId: `${run}-v-${String(from + index)}`,
    userId: 'u-1',
  }));
}

async function follow(answer: StageEventsAnswer, saved?: object) {
  const stage = await startStandInStage((request, response) => {
    // Only the first question is answered: the next ones wait, as a held long poll does.
    if (stage.received.length > 1) return;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  const dataDir = tempDir();
  const file = join(dataDir, EVENT_FEED_FILE);
  if (saved !== undefined) writeFileSync(file, JSON.stringify(saved));
  const published: DeliveredEvent[] = [];
  const lines: string[] = [];
  const log = {
    info: (details: object, message: string) => lines.push(`${message} ${JSON.stringify(details)}`),
    warn: (details: object, message: string) => lines.push(`${message} ${JSON.stringify(details)}`),
  };
  const watch = new OnAirWatch({
    aircraft: ['N743AS'],
    state: new OperationsStateStore(['N743AS']),
    graceMs: 10_000,
    publish: async (delivered) => void published.push(...delivered),
    persist: async () => undefined,
    log,
  });
  const feed = new StageEventFeed({
    stage: { url: stage.url, secret: stageTokenSecret },
    file,
    watch,
    log,
  });
  feeds.push(feed);
  await feed.start();
  await vi.waitFor(() =>
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      run: answer.run,
      seq: answer.events.at(-1)?.seq,
    }),
  );
  return { feed, published, lines, stage, saved: () => JSON.parse(readFileSync(file, 'utf8')) };
}

const aircraft = { N743AS: { publishers: [], bitrate: null, viewers: 0, cameraAsleep: false } };

describe("the stage event feed's cursor", () => {
  it('resumes after its saved cursor, asking the stage with its run', async () => {
    const { published, stage, saved } = await follow(
      { run: 'r1', first: 1, last: 7, events: events('r1', 6, 7), aircraft },
      { run: 'r1', seq: 5, aircraft: {} },
    );
    // The first question is answered at once (the aircraft now); the next is held, 50 s with
    // nobody publishing.
    expect(stage.received[0]?.url).toBe('/_control/events?after=5&run=r1');
    await vi.waitFor(() =>
      expect(stage.received[1]?.url).toBe('/_control/events?after=7&run=r1&wait=50'),
    );
    expect(stage.received[0]?.headers.authorization).toMatch(/^Bearer /);
    expect(published).toHaveLength(2);
    expect(saved()).toMatchObject({ run: 'r1', seq: 7 });
  });

  it('says and counts the events a ring that overflowed no longer had', async () => {
    const { feed, published, lines, saved } = await follow(
      { run: 'r1', first: 20, last: 22, events: events('r1', 20, 22), aircraft },
      { run: 'r1', seq: 5, aircraft: {} },
    );
    expect(feed.counts.missed).toBe(14);
    expect(lines.join('\n')).toContain("stage events missed: the stage's ring no longer had them");
    expect(published).toHaveLength(3);
    expect(saved()).toMatchObject({ seq: 22 });
  });

  it('starts again from the first event of a stage that restarted, missing nothing it has', async () => {
    const { feed, published, saved } = await follow(
      { run: 'r2', first: 1, last: 2, events: events('r2', 1, 2), aircraft },
      { run: 'r1', seq: 40, aircraft: {} },
    );
    expect(feed.counts).toEqual({ missed: 0, stageRestarts: 1 });
    expect(published).toHaveLength(2);
    expect(saved()).toMatchObject({ run: 'r2', seq: 2 });
  });
});
