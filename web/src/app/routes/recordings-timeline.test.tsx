/**
 * The Recordings page's timelines (docs/product.md#recordings, decision 0086): a URL's moment
 * opened and played, a bad one or one with nothing recorded said so, the keyboard and the
 * pointer on the track, the URL following the chosen instant (replaced), a clip downloaded, and
 * a segment's preview picture. The player itself (Media Source Extensions, which jsdom has not) is
 * replaced by what it was asked to play.
 */
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation, useNavigationType } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { paths } from '@/config/paths';
import { fillText } from '@/config/ui-text';
import { recordingsText } from '@/config/ui-text-recordings';
import type { RecordedSpan } from '@/features/recordings/api/recordings';
import { RecordingsRoute } from './recordings';

vi.mock('@/features/recordings/components/recording-player', () => ({
  RecordingPlayer: (props: { stageId: string; span: RecordedSpan; startOffsetMs?: number }) => (
    <p data-testid="playing">
      {`${props.stageId} ${props.span.span} from ${props.startOffsetMs ?? 0} ms`}
    </p>
  ),
}));

const NOW = Date.UTC(2026, 11, 29, 8, 0, 0);
const text = recordingsText.timeline;

/** A span of 4 s segments from `startMs`, the second with a preview picture. */
function span(startMs: number, segments: number): RecordedSpan {
  return {
    span: String(startMs),
    startMs,
    endMs: startMs + segments * 4000,
    publisher: 'camera',
    mimeType: 'video/webm; codecs="vp8,opus"',
    segments: Array.from({ length: segments }, (_, index) => ({
      name: `${index}.webm`,
      offsetMs: index * 4000,
      durationMs: 4000,
      ...(index === 1 ? { preview: `${index}.jpg` } : {}),
    })),
  };
}

// N743AS: 07:30:00–07:31:00 and 07:40:00–07:45:00; N953AS: nothing.
const FIRST = span(Date.UTC(2026, 11, 29, 7, 30, 0), 15);
const SECOND = span(Date.UTC(2026, 11, 29, 7, 40, 0), 75);
const LIST = {
  aircraft: [
    { stageId: 'N743AS', spans: [FIRST, SECOND] },
    { stageId: 'N953AS', spans: [] },
  ],
};

let fetchSpy: ReturnType<typeof vi.fn>;

beforeEach(() => {
  // The timelines end at "now": a clock of the test's own (Date only; timers run as usual).
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  localStorage.setItem('token', 'login-token');
  fetchSpy = vi.fn((input: RequestInfo | URL) => {
    const url = String(input);
    if (url.includes('/download')) return Promise.resolve(new Response('clip', { status: 200 }));
    if (url.endsWith('.jpg')) return Promise.resolve(new Response('jpeg', { status: 200 }));
    return Promise.resolve(new Response(JSON.stringify(LIST), { status: 200 }));
  });
  vi.stubGlobal('fetch', fetchSpy);
  // jsdom has no blob URLs.
  class UrlWithBlobs extends URL {
    static override createObjectURL = () => 'blob:picture';
    static override revokeObjectURL = () => undefined;
  }
  vi.stubGlobal('URL', UrlWithBlobs);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  localStorage.clear();
});

/** Where the app is, and whether it got there by a replace (no history entry). */
function WhereAmI() {
  const location = useLocation();
  return (
    <p data-testid="where">{`${location.pathname}${location.search} ${useNavigationType()}`}</p>
  );
}

function renderAt(url: string) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route
          path={paths.recordings.path}
          element={
            <>
              <RecordingsRoute />
              <WhereAmI />
            </>
          }
        />
      </Routes>
    </MemoryRouter>,
  );
}

const timeline = (stageId = 'N743AS') =>
  screen.findByRole('slider', { name: fillText(text.label, { stageId }) });

/** The track as 3600 px wide from x = 0: at the hour's zoom, a pixel a second. */
function widen(track: HTMLElement) {
  vi.spyOn(track, 'getBoundingClientRect').mockReturnValue(
    DOMRect.fromRect({ x: 0, y: 0, width: 3600, height: 48 }),
  );
}

describe('a moment in the URL', () => {
  it('opens that aircraft’s timeline at the instant, up close, and plays from it', async () => {
    renderAt('/recordings/N743AS?t=2026-12-29T07:40:30Z');
    expect(await screen.findByTestId('playing')).toHaveTextContent(
      `N743AS ${SECOND.span} from 30000 ms`,
    );
    const track = await timeline();
    expect(track).toHaveAttribute('aria-valuetext', '07:40:30 UTC, recorded');
    const zoom = within(screen.getAllByRole('group', { name: text.zoom })[0]!);
    expect(zoom.getByRole('button', { name: text.hour })).toHaveAttribute('aria-pressed', 'true');
    // Every aircraft's timeline is there.
    expect(await timeline('N953AS')).toBeInTheDocument();
  });

  it('says when nothing was recorded at the instant, and offers the next recording', async () => {
    renderAt('/recordings/N743AS?t=2026-12-29T07:35:00Z');
    const status = await screen.findByText(
      fillText(recordingsText.moment.nothingAt, { time: '07:35:00' }),
    );
    expect(status.closest('[role="status"]')).not.toBeNull();
    expect(screen.queryByTestId('playing')).toBeNull();
    fireEvent.click(
      screen.getByRole('button', {
        name: fillText(recordingsText.moment.playNext, { time: '07:40:00' }),
      }),
    );
    expect(await screen.findByTestId('playing')).toHaveTextContent(`${SECOND.span} from 0 ms`);
    expect(screen.getByTestId('where')).toHaveTextContent(
      '/recordings/N743AS?t=2026-12-29T07:40:00Z REPLACE',
    );
  });

  it.each(['yesterday', '2026-12-32T07:40:30Z', '07:40:30'])(
    'says what is wrong with t=%s, and plays nothing',
    async (t) => {
      renderAt(`/recordings/N743AS?t=${t}`);
      expect(await screen.findByRole('alert')).toHaveTextContent(
        fillText(recordingsText.moment.bad, { t }),
      );
      expect(screen.queryByTestId('playing')).toBeNull();
      expect(await timeline()).toBeInTheDocument();
    },
  );

  it('says nothing was recorded at a moment older than the day kept, the slider at its start', async () => {
    renderAt('/recordings/N743AS?t=2026-12-25T07:00:00Z');
    expect(
      await screen.findByText(fillText(recordingsText.moment.nothingAt, { time: '07:00:00' })),
    ).toBeVisible();
    const track = await timeline();
    expect(track).toHaveAttribute('aria-valuenow', String((NOW - 86_400_000) / 1000));
    expect(screen.queryByTestId('playing')).toBeNull();
  });

  it('says so for an aircraft the list has not', async () => {
    renderAt('/recordings/N000XX?t=2026-12-29T07:40:30Z');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      fillText(recordingsText.moment.unknownAircraft, { stageId: 'N000XX' }),
    );
  });
});

describe('the timeline', () => {
  it('moves its cursor with the keys, the URL following by replace, and Enter plays there', async () => {
    renderAt('/recordings');
    const track = await timeline();
    // It starts at the newest recording's start, the whole day shown.
    expect(track).toHaveAttribute('aria-valuetext', '07:40:00 UTC, recorded');
    act(() => track.focus());
    fireEvent.keyDown(track, { key: 'ArrowRight' }); // a minute at the day's zoom
    expect(track).toHaveAttribute('aria-valuetext', '07:41:00 UTC, recorded');
    fireEvent.keyDown(track, { key: '+' }); // the hour: steps of 10 s
    fireEvent.keyDown(track, { key: 'ArrowLeft', shiftKey: true });
    expect(track).toHaveAttribute('aria-valuetext', '07:39:20 UTC, not recorded');
    fireEvent.keyDown(track, { key: '+' }); // five minutes: steps of 1 s
    expect(screen.getAllByRole('button', { name: text.minutes })[0]).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    fireEvent.keyDown(track, { key: 'ArrowRight' });
    expect(track).toHaveAttribute('aria-valuetext', '07:39:21 UTC, not recorded');
    expect(screen.getByTestId('where')).toHaveTextContent(
      '/recordings/N743AS?t=2026-12-29T07:39:21Z REPLACE',
    );
    // The focused cursor shows its time over the track.
    expect(screen.getByTestId('timeline-preview')).toHaveTextContent('07:39:21 UTC');
    expect(screen.getByTestId('timeline-preview')).toHaveTextContent(text.previewNotRecorded);

    fireEvent.keyDown(track, { key: 'PageUp' }); // ten steps: 07:39:31
    fireEvent.keyDown(track, { key: 'ArrowRight', shiftKey: true }); // 07:39:41
    fireEvent.keyDown(track, { key: 'PageUp' }); // 07:39:51
    fireEvent.keyDown(track, { key: 'PageUp' }); // 07:40:01
    fireEvent.keyDown(track, { key: 'Enter' });
    expect(await screen.findByTestId('playing')).toHaveTextContent(`${SECOND.span} from 1000 ms`);

    fireEvent.keyDown(track, { key: 'End' });
    expect(track).toHaveAttribute('aria-valuetext', '08:00:00 UTC, not recorded');
    fireEvent.keyDown(track, { key: 'Home' });
    expect(track).toHaveAttribute('aria-valuetext', '08:00:00 UTC, not recorded'); // a day ago
    expect(track).toHaveAttribute('aria-valuenow', String((NOW - 86_400_000) / 1000));
  });

  it('shows the time under the pointer, with the segment’s picture, and a click plays from there', async () => {
    renderAt('/recordings/N743AS?t=2026-12-29T07:30:30Z');
    const track = await timeline();
    widen(track);
    // At the hour's zoom around 07:30:30 (07:00:30–08:00:30, kept before now: 07:00–08:00),
    // x = 1805 is 07:30:05, in the second segment, which has a picture.
    fireEvent.pointerMove(track, { clientX: 1805 });
    const preview = screen.getByTestId('timeline-preview');
    expect(preview).toHaveTextContent('07:30:05 UTC');
    expect(preview).not.toHaveTextContent(text.previewNotRecorded);
    await waitFor(() =>
      expect(preview.querySelector('img')).toHaveAttribute('src', 'blob:picture'),
    );
    const [previewUrl, init] = fetchSpy.mock.calls.find(([url]) => String(url).endsWith('.jpg'))!;
    expect(String(previewUrl)).toContain(`/api/recordings/N743AS/${FIRST.span}/1.jpg`);
    expect(init).toMatchObject({ headers: { Authorization: 'Bearer login-token' } });

    fireEvent.click(track, { clientX: 1800 });
    expect(await screen.findByTestId('playing')).toHaveTextContent(`${FIRST.span} from 0 ms`);
    expect(screen.getByTestId('where')).toHaveTextContent('?t=2026-12-29T07:30:00Z REPLACE');
  });

  it('makes a clip of two marks, cut where its recording ends, and downloads it', async () => {
    renderAt('/recordings/N743AS?t=2026-12-29T07:44:30Z');
    const track = await timeline();
    act(() => track.focus());
    fireEvent.keyDown(track, { key: 'i' });
    expect(screen.getByText(fillText(text.clipOneStart, { start: '07:44:30' }))).toBeVisible();
    fireEvent.keyDown(track, { key: 'PageUp' }); // 07:46:10, past the recording's end
    const section = screen.getByTestId('timeline-N743AS');
    fireEvent.click(within(section).getByRole('button', { name: text.markEnd }));
    expect(
      screen.getByText(fillText(text.clip, { start: '07:44:30', end: '07:45:00' })),
    ).toBeVisible();
    expect(screen.getByText(fillText(text.clipCutAtSpan, { end: '07:45:00' }))).toBeVisible();
    fireEvent.click(screen.getByRole('button', { name: text.downloadClip }));
    await waitFor(() =>
      expect(fetchSpy.mock.calls.map(([url]) => String(url))).toContainEqual(
        expect.stringContaining(
          `/api/recordings/N743AS/${SECOND.span}/download?from=${Date.UTC(2026, 11, 29, 7, 44, 30)}&to=${SECOND.endMs}`,
        ),
      ),
    );
  });
});
