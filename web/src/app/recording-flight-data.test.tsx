/**
 * The HUD over a recording (decision 0096), as the app composes it: the flight data of the
 * segments around the playhead fetched from the API with the login token, each sample drawn for
 * the frame on screen on the player's media timeline (a segment at its `offsetMs`), not for now;
 * where the recording's data stops, the figures say their age, then go; a segment without data
 * (a 404) draws nothing. In the rewind, the same on the feed's timeline (media time 0 at its
 * anchor), the segment being written read again as it grows. The video is jsdom's (no frame
 * callback: its time, at each timeupdate).
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeFlightRecord, FLIGHT_FILE_MAGIC } from '@tailcam/protocol/flight-data/recorded';
import { flightDataAt } from '@tailcam/protocol/flight-data/flight';
import { flightSampleFromPayload } from '@/features/flight-data/lib/flight-payload';
import { formatAltitude, formatGroundSpeed } from '@/features/flight-data/lib/format-flight';
import type { RecordedSpan } from '@/features/recordings/api/recordings';
import type { FeedSegment } from '@/features/recordings/lib/rewind-timeline';
import { RecordingFlightData, RewindFlightData } from './recording-flight-data';

const T0 = Date.UTC(2026, 10, 29, 13, 30);
const UUID = new Uint8Array(16).fill(0x9e);
const SPAN: RecordedSpan = {
  span: String(T0),
  startMs: T0,
  endMs: T0 + 12_000,
  publisher: 'camera',
  mimeType: 'video/webm; codecs="vp8"',
  // As the API lists them: the second segment's file is named by its offset in the span.
  segments: [
    { name: '0000000000-4000.webm', offsetMs: 0, durationMs: 4000 },
    { name: '0000004000-4000.webm', offsetMs: 4000, durationMs: 4000 },
    { name: '0000008000-4000.webm', offsetMs: 8000, durationMs: 4000 },
  ],
};

/** A segment's file: a sample a second from `fromMs` (span time) for `seconds` seconds. */
function flightFile(fromMs: number, seconds: number): ArrayBuffer {
  const records = Array.from({ length: seconds }, (_, index) =>
    encodeFlightRecord({
      timeMs: index * 1000,
      uuid: UUID,
      payload: flightDataAt('N953AS', T0 + fromMs + index * 1000),
    }),
  );
  const bytes = new Uint8Array(Buffer.concat([FLIGHT_FILE_MAGIC, ...records]));
  return bytes.buffer;
}

const figuresAt = (spanMs: number) => {
  const sample = flightSampleFromPayload(
    new Uint8Array(flightDataAt('N953AS', T0 + spanMs)).buffer,
  );
  if (!sample) throw new Error('no sample');
  return { alt: formatAltitude(sample.altitudeFt), gs: formatGroundSpeed(sample.groundSpeedKt) };
};

let fetched: { url: string; authorization: string | null }[];
/** What the segment being written (`0000008000.part`) has of flight data so far, in seconds. */
let writtenSeconds = 0;

beforeEach(() => {
  localStorage.setItem('token', 'login-token');
  fetched = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      fetched.push({
        url,
        authorization: new Headers(init?.headers).get('authorization'),
      });
      // The first two segments carry a sample a second; the third none (the data stopped).
      const body = url.endsWith(`/${SPAN.span}/0000000000.flight`)
        ? flightFile(0, 4)
        : url.endsWith(`/${SPAN.span}/0000004000.flight`)
          ? flightFile(4000, 4)
          : url.endsWith(`/${SPAN.span}/0000008000.flight`) && writtenSeconds > 0
            ? flightFile(8000, writtenSeconds)
            : undefined;
      return Promise.resolve(
        body === undefined
          ? new Response(JSON.stringify({ error: 'No flight data for this segment' }), {
              status: 404,
            })
          : new Response(body, { status: 200 }),
      );
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  writtenSeconds = 0;
  localStorage.clear();
});

function playerVideo() {
  const video = document.createElement('video');
  let seconds = 0;
  Object.defineProperty(video, 'currentTime', {
    get: () => seconds,
    set: (value: number) => (seconds = value),
  });
  const showAt = (spanMs: number) =>
    act(() => {
      seconds = spanMs / 1000;
      video.dispatchEvent(new Event('timeupdate'));
    });
  return { video, showAt };
}

const hud = () => screen.queryByTestId('flight-hud');

describe('the flight data over a recording', () => {
  it('shows the figures of the instant shown, from its segment, fetched with the login token', async () => {
    const { video, showAt } = playerVideo();
    render(<RecordingFlightData stageId="N953AS" span={SPAN} video={video} />);
    showAt(2_500);
    await waitFor(() => expect(hud()).toHaveTextContent(figuresAt(2_000).alt));
    expect(hud()).toHaveTextContent(figuresAt(2_000).gs);
    expect(hud()).toHaveAttribute('data-status', 'fresh');
    expect(fetched[0]).toEqual({
      url: expect.stringMatching(/\/api\/recordings\/N953AS\/\d+\/0000000000\.flight$/),
      authorization: 'Bearer login-token',
    });

    // Into the second segment: its own samples, at its offset on the span's timeline.
    showAt(6_200);
    await waitFor(() => expect(hud()).toHaveTextContent(figuresAt(6_000).alt));
    // Back: the figures of then again, not of the newest sample.
    showAt(1_100);
    expect(hud()).toHaveTextContent(figuresAt(1_000).alt);
  });

  it('says the age of the last figures where the data stops, then hides them', async () => {
    const { video, showAt } = playerVideo();
    render(<RecordingFlightData stageId="N953AS" span={SPAN} video={video} />);
    showAt(7_500);
    await waitFor(() => expect(hud()).toHaveAttribute('data-status', 'fresh'));
    // The third segment has none: the last sample (7 s) ages in media time.
    showAt(12_000);
    await waitFor(() =>
      expect(fetched.some((f) => f.url.endsWith('0000008000.flight'))).toBe(true),
    );
    expect(hud()).toHaveAttribute('data-status', 'stale');
    expect(hud()).toHaveTextContent('5 s old');
    expect(hud()).toHaveTextContent(figuresAt(7_000).alt);
    showAt(17_500);
    expect(hud()).toBeNull();
  });

  it('draws nothing for a recording without flight data', async () => {
    const { video, showAt } = playerVideo();
    const { container } = render(
      <RecordingFlightData
        stageId="N953AS"
        span={{ ...SPAN, segments: SPAN.segments.slice(2) }}
        video={video}
      />,
    );
    showAt(9_000);
    await waitFor(() => expect(fetched).toHaveLength(1));
    await act(() => Promise.resolve());
    expect(container).toBeEmptyDOMElement();
    expect(screen.queryByText(/ft/)).toBeNull();
  });

  it("in the rewind: on the feed's wall-clock timeline, the segment being written read as it grows", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 + 20_000 });
    const { video, showAt } = playerVideo();
    const anchorMs = T0 - 3_600_000;
    const feed = (name: string, offsetMs: number, durationMs: number | undefined): FeedSegment => ({
      key: `${SPAN.span}/${name}`,
      span: SPAN,
      name,
      startMs: T0 + offsetMs,
      durationMs,
      mimeType: SPAN.mimeType,
    });
    const segments = [
      feed('0000004000-4000.webm', 4000, 4000),
      feed('0000008000.part', 8000, undefined),
    ];
    writtenSeconds = 1;
    render(
      <RewindFlightData stageId="N953AS" segments={segments} anchorMs={anchorMs} video={video} />,
    );
    // The picture at T0 + 8.5 s: media time from the anchor.
    showAt(T0 + 8_500 - anchorMs);
    await waitFor(() => expect(hud()).toHaveTextContent(figuresAt(8_000).alt));
    // The recorder wrote two more seconds; 2 s on, the next look reads them.
    writtenSeconds = 3;
    showAt(T0 + 10_800 - anchorMs);
    await waitFor(() => expect(hud()).toHaveAttribute('data-status', 'stale'));
    vi.setSystemTime(T0 + 22_500);
    showAt(T0 + 10_900 - anchorMs);
    await waitFor(() => expect(hud()).toHaveTextContent(figuresAt(10_000).alt));
    expect(hud()).toHaveAttribute('data-status', 'fresh');
  });
});
