import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyFrameRequests } from './key-frame-requests';

const PENDING_MS = 250;
const MIN_INTERVAL_MS = 200;

/** Key frame requests whose PLIs are counted (the publisher as the stage sees it). */
function counted(options: { publisherKnown?: () => boolean } = {}) {
  let plis = 0;
  const requests = new KeyFrameRequests({
    sendRequest: () => {
      if (options.publisherKnown && !options.publisherKnown()) return false;
      plis += 1;
      return true;
    },
    pendingMs: PENDING_MS,
    minIntervalMs: MIN_INTERVAL_MS,
    now: () => Date.now(),
  });
  return { requests, plis: () => plis };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('key frame requests to a publisher', () => {
  it('sends one PLI for five viewers asking while a key frame is on its way', () => {
    const { requests, plis } = counted();
    for (let viewer = 0; viewer < 5; viewer += 1) {
      requests.request();
      vi.advanceTimersByTime(40);
    }
    expect(plis()).toBe(1);
  });

  it('sends a second PLI for a request after the key frame came and the interval passed', () => {
    const { requests, plis } = counted();
    requests.request();
    vi.advanceTimersByTime(60);
    requests.keyFrameArrived();
    vi.advanceTimersByTime(MIN_INTERVAL_MS);
    requests.request();
    expect(plis()).toBe(2);
  });

  it('asks again when the key frame asked for has not come within the pending time', () => {
    const { requests, plis } = counted();
    requests.request();
    vi.advanceTimersByTime(PENDING_MS - 10);
    requests.request();
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(20);
    requests.request();
    expect(plis()).toBe(2);
  });

  it('holds a request made soon after a key frame until the interval has passed, then sends one PLI for all held', () => {
    const { requests, plis } = counted();
    requests.request();
    vi.advanceTimersByTime(50);
    requests.keyFrameArrived();
    requests.request();
    requests.request();
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(MIN_INTERVAL_MS - 50 - 1);
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(plis()).toBe(2);
  });

  it('sends at most one PLI per interval however often a viewer asks', () => {
    const { requests, plis } = counted();
    // A viewer sending a PLI every 10 ms for 2 s, each key frame arriving 30 ms after its PLI.
    let lastPlis = 0;
    for (let elapsed = 0; elapsed < 2_000; elapsed += 10) {
      requests.request();
      if (plis() !== lastPlis) {
        lastPlis = plis();
        setTimeout(() => requests.keyFrameArrived(), 30);
      }
      vi.advanceTimersByTime(10);
    }
    expect(plis()).toBeLessThanOrEqual(2_000 / MIN_INTERVAL_MS + 1);
    expect(plis()).toBeGreaterThanOrEqual(2_000 / MIN_INTERVAL_MS - 1);
  });

  it('counts nothing before the publisher has sent a packet, and asks at the next request', () => {
    let known = false;
    const { requests, plis } = counted({ publisherKnown: () => known });
    requests.request();
    expect(plis()).toBe(0);
    known = true;
    requests.request();
    expect(plis()).toBe(1);
  });

  it('drops a held request when closed', () => {
    const { requests, plis } = counted();
    requests.request();
    requests.keyFrameArrived();
    requests.request();
    requests.close();
    vi.advanceTimersByTime(MIN_INTERVAL_MS * 2);
    expect(plis()).toBe(1);
  });
});
