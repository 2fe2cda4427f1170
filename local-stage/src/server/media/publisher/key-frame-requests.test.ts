import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyFrameRequests } from './key-frame-requests';

const PENDING_MS = 250;
const MIN_INTERVAL_MS = 200;
const VIEWER_INTERVAL_MS = 1_000;

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
    viewerIntervalMs: VIEWER_INTERVAL_MS,
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

/** A publisher whose key frame opens `delayMs` after each PLI; returns when each key frame came. */
function answering(requests: KeyFrameRequests, plis: () => number, delayMs = 30) {
  const keyFrames: number[] = [];
  let answered = 0;
  const keyFrame = () => {
    keyFrames.push(Date.now());
    requests.keyFrameArrived();
  };
  // Polled every millisecond of fake time: a new PLI gets its key frame `delayMs` later.
  const poll = setInterval(() => {
    while (answered < plis()) {
      answered += 1;
      setTimeout(keyFrame, delayMs);
    }
  }, 1);
  return { keyFrames, keyFrame, stop: () => clearInterval(poll) };
}

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

describe("viewers' own key frame requests", () => {
  it('sends at most one PLI a second to the publisher for a flood of viewers asking', () => {
    const { requests, plis } = counted();
    const publisher = answering(requests, plis);
    // 25 viewers each asking every 500 ms (receivers whose decoder gets nothing) for 10 s.
    for (let elapsed = 0; elapsed < 10_000; elapsed += 20) {
      requests.requestByViewer();
      vi.advanceTimersByTime(20);
    }
    publisher.stop();
    expect(plis()).toBeLessThanOrEqual(11);
    expect(plis()).toBeGreaterThanOrEqual(9);
    const gaps = publisher.keyFrames
      .slice(1)
      .map((at, index) => at - (publisher.keyFrames[index] ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(VIEWER_INTERVAL_MS);
  });

  it("sends a viewer's first request at once when nothing has been asked for a second", () => {
    const { requests, plis } = counted();
    requests.request();
    requests.keyFrameArrived();
    vi.advanceTimersByTime(VIEWER_INTERVAL_MS);
    requests.requestByViewer();
    expect(plis()).toBe(2);
  });

  it('answers a deferred request with a PLI a second after the last PLI', () => {
    const { requests, plis } = counted();
    requests.request();
    vi.advanceTimersByTime(30);
    requests.keyFrameArrived();
    vi.advanceTimersByTime(100);
    requests.requestByViewer();
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(VIEWER_INTERVAL_MS - 130 - 1);
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(plis()).toBe(2);
  });

  it('asks at once for a join during a flood, held only to the interval between two PLIs', () => {
    const { requests, plis } = counted();
    const publisher = answering(requests, plis);
    // PLIs at 0, 1,000 and 2,000 ms; at 2,500 the viewers' next is held until 3,000.
    for (let elapsed = 0; elapsed < 2_500; elapsed += 20) {
      requests.requestByViewer();
      vi.advanceTimersByTime(20);
    }
    expect(plis()).toBe(3);
    requests.request(); // a join, 500 ms after the last PLI: at once
    expect(plis()).toBe(4);
    publisher.stop();
  });

  it('holds a join asked within the interval between two PLIs until it has passed, not a second', () => {
    const { requests, plis } = counted();
    requests.requestByViewer();
    vi.advanceTimersByTime(30);
    requests.keyFrameArrived();
    requests.requestByViewer(); // deferred to 1 s after the PLI
    vi.advanceTimersByTime(20);
    requests.request(); // a join: after the 200 ms floor, not the viewers' second
    vi.advanceTimersByTime(MIN_INTERVAL_MS - 50 - 1);
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(plis()).toBe(2);
  });

  it("resets the viewers' clock with a join's PLI: its key frame answers them too", () => {
    const { requests, plis } = counted();
    requests.requestByViewer(); // t = 0: a PLI
    vi.advanceTimersByTime(30);
    requests.keyFrameArrived();
    vi.advanceTimersByTime(770);
    requests.requestByViewer(); // t = 800: deferred to a second after the PLI, 200 ms from now
    requests.request(); // a join, at once (past the floor): the viewers' request rides on it
    expect(plis()).toBe(2);
    vi.advanceTimersByTime(30);
    requests.keyFrameArrived();
    vi.advanceTimersByTime(500);
    requests.requestByViewer(); // t = 1,330: within a second of the join's PLI, deferred
    vi.advanceTimersByTime(VIEWER_INTERVAL_MS - 530 - 1);
    expect(plis()).toBe(2);
    vi.advanceTimersByTime(1);
    expect(plis()).toBe(3);
  });

  it('takes a key frame that arrives unasked as the answer to a deferred request', () => {
    const { requests, plis } = counted();
    requests.request();
    vi.advanceTimersByTime(30);
    requests.keyFrameArrived();
    vi.advanceTimersByTime(100);
    requests.requestByViewer();
    vi.advanceTimersByTime(400);
    requests.keyFrameArrived(); // the encoder's own key frame (a periodic one, say)
    vi.advanceTimersByTime(VIEWER_INTERVAL_MS * 3);
    expect(plis()).toBe(1);
  });

  it("counts the viewers' second from a key frame that came unasked", () => {
    const { requests, plis } = counted();
    requests.request();
    vi.advanceTimersByTime(30);
    requests.keyFrameArrived();
    vi.advanceTimersByTime(2_000);
    requests.keyFrameArrived(); // unasked, at t = 2,030
    vi.advanceTimersByTime(300);
    requests.requestByViewer();
    vi.advanceTimersByTime(VIEWER_INTERVAL_MS - 300 - 1);
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(plis()).toBe(2);
  });

  it('asks again a second after a PLI whose key frame never came', () => {
    const { requests, plis } = counted();
    requests.requestByViewer();
    vi.advanceTimersByTime(PENDING_MS + 10);
    requests.requestByViewer(); // the key frame was lost on its way to the stage
    expect(plis()).toBe(1);
    vi.advanceTimersByTime(VIEWER_INTERVAL_MS - PENDING_MS - 10);
    expect(plis()).toBe(2);
  });
});
