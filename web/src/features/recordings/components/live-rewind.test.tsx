/**
 * The rewind bar of the live player (docs/product.md#rewind), against a stubbed API: disabled with
 * its reason before anything is recorded; 'Rewind 30 seconds', `j` and the scrubber lay the
 * recording over the live video (whose sound goes off) and say how far behind live; 'Go live' and
 * End take it away at once; keys typed into a field are the field's. Media Source Extensions are
 * not in jsdom: a MediaSource that never opens stands in (the e2e plays the real thing).
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rewindText } from '@/config/ui-text-rewind';
import { LiveRewind } from './live-rewind';

class ClosedMediaSource extends EventTarget {}

let recordedMs = 0;
let fetchSpy: ReturnType<typeof vi.fn>;

/** The list the API gives: N743AS recorded for the last `recordedMs`, in 4 s segments. */
function recordingsAnswer() {
  const now = Date.now();
  if (recordedMs === 0) return { aircraft: [] };
  const startMs = now - recordedMs;
  const count = Math.floor(recordedMs / 4_000);
  return {
    aircraft: [
      {
        stageId: 'N743AS',
        spans: [
          {
            span: String(startMs),
            startMs,
            endMs: startMs + count * 4_000,
            publisher: 'camera',
            mimeType: 'video/webm; codecs="vp8,opus"',
            segments: Array.from({ length: count }, (_, index) => ({
              name: `${index}.webm`,
              offsetMs: index * 4_000,
              durationMs: 4_000,
              preview: `${index}.jpg`,
            })),
          },
        ],
      },
    ],
  };
}

beforeEach(() => {
  localStorage.setItem('token', 'login-token');
  recordedMs = 0;
  fetchSpy = vi.fn((input: unknown) =>
    Promise.resolve(
      String(input).endsWith('.jpg')
        ? new Response(new Blob(['a picture'], { type: 'image/jpeg' }), { status: 200 })
        : new Response(JSON.stringify(recordingsAnswer()), {
            status: 200,
            headers: { 'Content-Type': 'application/json' },
          }),
    ),
  );
  vi.stubGlobal('fetch', fetchSpy);
  vi.stubGlobal('MediaSource', ClosedMediaSource);
  URL.createObjectURL = vi.fn(() => 'blob:recording');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLMediaElement.prototype, 'load').mockImplementation(() => undefined);
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function renderRewind() {
  const box = document.createElement('div');
  document.body.append(box);
  const live = document.createElement('video');
  live.muted = false; // the viewer turned the sound on
  const liveVideo = createRef<HTMLVideoElement>() as { current: HTMLVideoElement | null };
  liveVideo.current = live;
  const onBehindChange = vi.fn();
  const announce = vi.fn();
  const view = render(
    <>
      <input aria-label="A text field" />
      <LiveRewind
        streamId="N743AS"
        videoBox={box}
        liveVideo={liveVideo}
        onBehindChange={onBehindChange}
        announce={announce}
      />
    </>,
  );
  return { ...view, box, live, onBehindChange, announce, user: userEvent.setup() };
}

describe('the rewind bar', () => {
  it('is disabled before anything is recorded, and says why', async () => {
    renderRewind();
    await waitFor(() =>
      expect(fetchSpy).toHaveBeenCalledWith(
        expect.stringContaining('/api/recordings?stage=N743AS'),
        expect.anything(),
      ),
    );
    const button = screen.getByRole('button', { name: rewindText.rewind });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription(
      'Nothing of N743AS is recorded yet, so there is nothing to rewind to.',
    );
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live');
  });

  it("goes 30 s back over the live video, which stays and goes quiet, and 'Go live' takes it away", async () => {
    recordedMs = 120_000;
    const { box, live, onBehindChange, announce, user } = renderRewind();
    const button = screen.getByRole('button', { name: rewindText.rewind });
    await waitFor(() => expect(button).toBeEnabled());

    await user.click(button);
    expect(box.querySelector('[data-testid="rewind-video"]')).not.toBeNull();
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:(29|30|31) behind live$/);
    expect(onBehindChange).toHaveBeenLastCalledWith(true);
    expect(announce).toHaveBeenLastCalledWith(
      expect.stringMatching(/^Rewound: 0:(29|30|31) behind live$/),
    );
    expect(live.muted).toBe(true);
    const recording = box.querySelector('video')!;
    expect(recording.muted).toBe(false); // the sound as the viewer had it live

    await user.click(screen.getByRole('button', { name: rewindText.goLive }));
    expect(box.querySelector('[data-testid="rewind-video"]')).toBeNull();
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live');
    expect(onBehindChange).toHaveBeenLastCalledWith(false);
    expect(announce).toHaveBeenLastCalledWith('Live');
    expect(live.muted).toBe(false);
  });

  it('takes j back 10 s and End to live, but not keys typed into a field', async () => {
    recordedMs = 120_000;
    const { box, user } = renderRewind();
    await waitFor(() =>
      expect(screen.getByRole('button', { name: rewindText.rewind })).toBeEnabled(),
    );

    await user.click(screen.getByRole('textbox', { name: 'A text field' }));
    await user.keyboard('j');
    expect(box.querySelector('video')).toBeNull();

    await act(async () => {
      (document.activeElement as HTMLElement).blur();
      await user.keyboard('j');
    });
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:(09|10|11) behind live$/);
    await user.keyboard('j');
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:(19|20|21) behind live$/);
    await user.keyboard('{End}');
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live');
    expect(box.querySelector('video')).toBeNull();
  });

  it("shows, on the focused scrubber, its instant's time and the segment's preview picture", async () => {
    recordedMs = 60_000;
    renderRewind();
    const scrubber = screen.getByRole('slider', { name: 'The last hour of N743AS' });
    await waitFor(() => expect(scrubber).toBeEnabled());
    act(() => scrubber.focus());
    await userEvent.setup().keyboard('{ArrowLeft}');
    const preview = await screen.findByTestId('timeline-preview');
    expect(preview).toHaveTextContent(/^\d\d:\d\d:\d\d UTC$/);
    await waitFor(() =>
      expect(preview.querySelector('img')).toHaveAttribute('src', 'blob:recording'),
    );
    expect(fetchSpy).toHaveBeenCalledWith(
      expect.stringMatching(/\/api\/recordings\/N743AS\/\d+\/1[0-9]\.jpg$/),
      expect.anything(),
    );
    act(() => scrubber.blur());
    expect(screen.queryByTestId('timeline-preview')).toBeNull();
  });

  it('reads the list again before a step back from live lands past the newest instant it names', async () => {
    // Where only finished segments play (Firefox and WebM), a list 8 s old ends 8 s ago; ← asks
    // for 5 s back, which the segments finished since then hold.
    vi.useFakeTimers({ toFake: ['Date'] });
    recordedMs = 120_000;
    const { user } = renderRewind();
    await waitFor(() =>
      expect(screen.getByRole('button', { name: rewindText.rewind })).toBeEnabled(),
    );
    const lists = () =>
      fetchSpy.mock.calls.filter(([input]) => String(input).includes('/api/recordings?')).length;
    const listedBefore = lists();
    vi.setSystemTime(Date.now() + 8_000);
    // The bar's clock moves on (it reads the time every 250 ms).
    await waitFor(() => expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live'));
    await act(() => new Promise((resolve) => setTimeout(resolve, 300)));

    await user.keyboard('{ArrowLeft}');
    await waitFor(() =>
      expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:0[4-6] behind live$/),
    );
    expect(lists()).toBe(listedBefore + 1);
  });

  it('drops that reading when End goes live before the list comes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    recordedMs = 120_000;
    const { box, user } = renderRewind();
    await waitFor(() =>
      expect(screen.getByRole('button', { name: rewindText.rewind })).toBeEnabled(),
    );
    vi.setSystemTime(Date.now() + 8_000);
    await act(() => new Promise((resolve) => setTimeout(resolve, 300)));
    // The list read again answers only once the viewer has gone live.
    let answer: () => void = () => undefined;
    fetchSpy.mockImplementationOnce(
      () =>
        new Promise<Response>((resolve) => {
          answer = () =>
            resolve(
              new Response(JSON.stringify(recordingsAnswer()), {
                status: 200,
                headers: { 'Content-Type': 'application/json' },
              }),
            );
        }),
    );

    await user.keyboard('{ArrowLeft}');
    await user.keyboard('{End}');
    await act(async () => answer());
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent('Live');
    expect(box.querySelector('[data-testid="rewind-video"]')).toBeNull();
  });

  it('goes, on the scrubber, to the instant chosen, or the next recorded one in a gap', async () => {
    recordedMs = 60_000;
    const { user } = renderRewind();
    const scrubber = screen.getByRole('slider', { name: 'The last hour of N743AS' });
    await waitFor(() => expect(scrubber).toBeEnabled());
    scrubber.focus();
    await user.keyboard('{ArrowLeft}');
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^0:0[4-7] behind live$/);
    await user.keyboard('{Home}');
    // Before the hour's first recorded instant there is nothing: the oldest is a minute back.
    expect(screen.getByTestId('rewind-behind')).toHaveTextContent(/^(0:59|1:00|1:01) behind live$/);
    expect(scrubber).toHaveAttribute(
      'aria-valuetext',
      expect.stringMatching(/ UTC, 1:0\d behind live|0:59 behind live/),
    );
  });
});
