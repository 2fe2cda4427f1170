import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { OperationsBusy, type OperationsSnapshot } from '../api/operations';
import {
  MIN_POLL_INTERVAL_MS,
  OperationsFeed,
  RETRY_DELAYS_MS,
  type FeedStatus,
} from './operations-feed';

const snapshot = (version: number): OperationsSnapshot => ({ version, aircraft: [], events: [] });

/** A feed whose requests the test answers one by one. */
function feedWithRequests() {
  const requests: {
    after: number | undefined;
    answer: (result: OperationsSnapshot | Error) => void;
    signal: AbortSignal;
  }[] = [];
  const snapshots: number[] = [];
  const statuses: FeedStatus['kind'][] = [];
  const feed = new OperationsFeed({
    fetchSnapshot: (after, signal) =>
      new Promise((resolve, reject) => {
        requests.push({
          after,
          signal,
          answer: (result) => (result instanceof Error ? reject(result) : resolve(result)),
        });
      }),
    onSnapshot: (next) => snapshots.push(next.version),
    onStatus: (status) => statuses.push(status.kind),
  });
  return { feed, requests, snapshots, statuses };
}

/** Lets the answered promise's callbacks run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the operations feed', () => {
  it('asks for the state, then polls after each version, at most one request a second', async () => {
    const { feed, requests, snapshots } = feedWithRequests();
    feed.start();
    expect(requests.map((request) => request.after)).toEqual([undefined]);
    requests[0]!.answer(snapshot(7));
    await settle();
    expect(snapshots).toEqual([7]);
    // The answer came at once: the next poll waits out the second.
    await vi.advanceTimersByTimeAsync(MIN_POLL_INTERVAL_MS - 1);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests.map((request) => request.after)).toEqual([undefined, 7]);
    // A poll that waited (a long poll) is followed at once.
    await vi.advanceTimersByTimeAsync(20_000);
    requests[1]!.answer(snapshot(8));
    await settle();
    expect(requests.map((request) => request.after)).toEqual([undefined, 7, 8]);
    feed.stop();
    expect(requests[2]!.signal.aborted).toBe(true);
  });

  it('tries again after a failure, waiting longer each time, and says it is retrying', async () => {
    const { feed, requests, snapshots, statuses } = feedWithRequests();
    feed.start();
    requests[0]!.answer(new ApiError('down', 502, undefined));
    await settle();
    expect(statuses).toEqual(['retrying']);
    await vi.advanceTimersByTimeAsync(RETRY_DELAYS_MS[0]);
    expect(requests).toHaveLength(2);
    requests[1]!.answer(new ApiError('down', undefined, undefined));
    await settle();
    await vi.advanceTimersByTimeAsync(RETRY_DELAYS_MS[1] - 1);
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(3);
    requests[2]!.answer(snapshot(3));
    await settle();
    expect(snapshots).toEqual([3]);
    expect(statuses).toEqual(['retrying', 'retrying', 'live']);
    feed.stop();
  });

  it("waits the API's Retry-After after a 429", async () => {
    const { feed, requests } = feedWithRequests();
    feed.start();
    requests[0]!.answer(new OperationsBusy(20));
    await settle();
    await vi.advanceTimersByTimeAsync(19_999);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    feed.stop();
  });

  it('stops asking after a 401 until retried', async () => {
    const { feed, requests, statuses } = feedWithRequests();
    feed.start();
    requests[0]!.answer(new ApiError('refused', 401, 'Invalid or expired token'));
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(1);
    expect(statuses).toEqual(['stopped']);
    feed.retry();
    expect(requests).toHaveLength(2);
    feed.stop();
  });

  it('asks nothing more after a 404: the API keeps no operations (Amazon IVS)', async () => {
    const { feed, requests, statuses } = feedWithRequests();
    feed.start();
    requests[0]!.answer(new ApiError('not found', 404, undefined));
    await settle();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(requests).toHaveLength(1);
    expect(statuses).toEqual(['unavailable']);
  });
});
