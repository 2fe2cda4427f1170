/**
 * The rewind bar with Amazon IVS (docs/product.md#rewind, decision 0088 "Amazon IVS"), against a
 * stubbed API listing an IVS recording still being written: the rewind is offered, says how far
 * IVS's recordings trail live, and goes no nearer live than that; a rewind plays the span's
 * playlist from the API (the login token with it) at the instant's media time; a seek within the
 * span stays with its player; expired segment URLs reload the playlist where the rewind is; 'Go
 * live' takes it away. hls.js is faked (the real one needs Media
 * Source Extensions, which jsdom has not).
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rewindText } from '@/config/ui-text-rewind';
import { FakeHls } from '../testing/fake-hls';
import { LiveRewind } from './live-rewind';

const created = FakeHls.created;

vi.mock('hls.js/light', async () => ({
  default: (await import('../testing/fake-hls')).FakeHls,
}));

const PLAYLIST = '/api/recordings/ivs/N743AS/st-One/PaRt2/multivariant.m3u8';
/** The recording began this long before the test: it covers the whole last hour. */
const RECORDING_FOR_MS = 2 * 3_600_000;
/** IVS_RECORDING_DELAY_MS, as the note states it. */
const DELAY_S = 12;
let recordingStartMs = 0;

/** The list the API gives with IVS: one recording of N743AS, still being written. */
function recordingsAnswer() {
  const now = Date.now();
  return {
    aircraft: [
      {
        stageId: 'N743AS',
        spans: [
          {
            span: 'st-One/PaRt2',
            start: new Date(recordingStartMs).toISOString(),
            end: new Date(now).toISOString(),
            startMs: recordingStartMs,
            endMs: now,
            publisher: 'encoder',
            mimeType: 'application/vnd.apple.mpegurl',
            segments: [],
            hls: PLAYLIST,
            inProgress: true,
          },
        ],
      },
    ],
  };
}

beforeEach(() => {
  created.length = 0;
  localStorage.setItem('token', 'login-token');
  recordingStartMs = Date.now() - RECORDING_FOR_MS;
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify(recordingsAnswer()), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      ),
    ),
  );
  vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => undefined);
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
});

afterEach(() => {
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

async function renderRewind() {
  const box = document.createElement('div');
  document.body.append(box);
  const live = document.createElement('video');
  live.muted = false;
  const liveVideo = createRef<HTMLVideoElement>() as { current: HTMLVideoElement | null };
  liveVideo.current = live;
  const view = render(
    <LiveRewind
      streamId="N743AS"
      videoBox={box}
      liveVideo={liveVideo}
      onBehindChange={vi.fn()}
      announce={vi.fn()}
    />,
  );
  const button = screen.getByRole('button', { name: rewindText.rewind });
  await waitFor(() => expect(button).toBeEnabled());
  return { ...view, box, live, button, user: userEvent.setup() };
}

/** The fake hls.js the rewind made, once its chunk has loaded. */
async function playing(): Promise<FakeHls> {
  await waitFor(() => expect(created).toHaveLength(1));
  return created[0]!;
}

/** How far into the recording (media seconds) an instant `behindS` before now is. */
const mediaSecondsAt = (behindS: number) => (Date.now() - behindS * 1000 - recordingStartMs) / 1000;

/** Within 1.5 s: the test's own time passes between the press and the look. */
function expectNear(actualS: number | undefined, expectedS: number) {
  expect(Math.abs((actualS ?? Number.NaN) - expectedS)).toBeLessThan(1.5);
}

describe('the rewind bar with Amazon IVS', () => {
  it('is offered when a recording covers the last hour, and says how far recordings trail live', async () => {
    const { button } = await renderRewind();
    expect(button).not.toHaveAccessibleDescription();
    expect(screen.getByTestId('rewind-delay')).toHaveTextContent(
      `Recordings on Amazon IVS trail live by about ${DELAY_S} s`,
    );
  });

  it("plays the span's playlist from the API, with the login token, at the instant's media time", async () => {
    const { box, button, user } = await renderRewind();
    await user.click(button);
    const hls = await playing();
    const video = box.querySelector<HTMLVideoElement>('[data-testid="rewind-video"]')!;
    expect(hls.media).toBe(video);
    expect(hls.sources).toEqual([expect.stringMatching(new RegExp(`${PLAYLIST}$`))]);
    expect(hls.headersFor(new URL(hls.sources[0]!, window.location.href).href)).toEqual({
      Authorization: 'Bearer login-token',
    });
    expect(
      hls.headersFor('https://tc-rec.s3.eu-west-1.amazonaws.com/AbCd/1.mp4?X-Amz-Signature=ab'),
    ).toEqual({});
    // 30 s back from live: hls.js starts there in the growing playlist, and it is sought once the
    // media is there.
    expectNear(hls.config.startPosition, mediaSecondsAt(30));
    video.dispatchEvent(new Event('loadedmetadata'));
    expectNear(video.currentTime, mediaSecondsAt(30));
    await waitFor(() =>
      expect(screen.getByTestId('rewind-behind')).toHaveTextContent(
        /^0:(29|30|31|32) behind live$/,
      ),
    );

    // Another 10 s back is a seek in the same playlist, not a new player.
    await user.keyboard('j');
    await waitFor(() => expectNear(video.currentTime, mediaSecondsAt(40)));
    expect(created).toHaveLength(1);
  });

  it('reloads the playlist where the rewind is when its segment URLs have expired', async () => {
    const { box, button, user } = await renderRewind();
    await user.click(button);
    const hls = await playing();
    const video = box.querySelector<HTMLVideoElement>('[data-testid="rewind-video"]')!;
    video.dispatchEvent(new Event('loadedmetadata'));
    video.currentTime = mediaSecondsAt(30) + 600; // watched on for ten minutes
    hls.emit(FakeHls.Events.ERROR, { fatal: true, type: FakeHls.ErrorTypes.NETWORK_ERROR });
    expect(hls.sources).toHaveLength(2);
    expect(hls.config.startPosition).toBe(video.currentTime);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('goes no nearer live than the stated delay, and on past it goes live', async () => {
    const { box, user } = await renderRewind();
    const scrubber = screen.getByRole('slider', { name: 'The last hour of N743AS' });
    // The scrubber's right end is the newest instant on S3: the delay before now.
    const max = Number(scrubber.getAttribute('max'));
    expect(Date.now() - max).toBeGreaterThanOrEqual(DELAY_S * 1000 - 1_000);
    expect(Date.now() - max).toBeLessThanOrEqual(DELAY_S * 1000 + 1_000);

    // j from live (10 s back, not on S3 yet) lands on the newest recorded instant.
    await act(async () => {
      await user.keyboard('j');
    });
    const hls = await playing();
    expectNear(hls.config.startPosition, mediaSecondsAt(DELAY_S));
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:1[1-3] behind live$/);

    // Dragged to its right end: the newest, no nearer.
    fireEvent.change(scrubber, { target: { value: String(Date.now()) } });
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:1[1-3] behind live$/);

    // 10 s on from there is past what is recorded: live.
    await user.keyboard('l');
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live');
    expect(box.querySelector('video')).toBeNull();
    expect(hls.destroyed).toBe(true);
  });

  it("'Go live' takes the recording away and stops its player, the live sound as it was", async () => {
    const { box, live, button, user } = await renderRewind();
    await user.click(button);
    const hls = await playing();
    expect(live.muted).toBe(true);
    await user.click(screen.getByRole('button', { name: rewindText.goLive }));
    expect(box.querySelector('[data-testid="rewind-video"]')).toBeNull();
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live');
    expect(hls.destroyed).toBe(true);
    expect(live.muted).toBe(false);
  });
});
