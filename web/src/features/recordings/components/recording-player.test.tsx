/**
 * The player of an IVS recording (decision 0073): hls.js (faked here; the real one needs Media
 * Source Extensions, which jsdom has not) gets the API's playlist, the login token goes with the
 * API's requests and never with S3's, an expired segment URL reloads the playlist where it was,
 * and a recording that cannot be played says so.
 */
import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordingsText } from '@/config/ui-text-recordings';
import type { RecordedSpan } from '../api/recordings';
import { FakeHls } from '../testing/fake-hls';
import { RecordingPlayer } from './recording-player';

const created = FakeHls.created;

vi.mock('hls.js/light', async () => ({
  default: (await import('../testing/fake-hls')).FakeHls,
}));

const SPAN: RecordedSpan = {
  span: 'st-One/PaRt1',
  startMs: Date.UTC(2026, 10, 26, 9, 31),
  endMs: Date.UTC(2026, 10, 26, 9, 41),
  publisher: 'encoder',
  mimeType: 'application/vnd.apple.mpegurl',
  segments: [],
  hls: '/api/recordings/ivs/N743AS/st-One/PaRt1/multivariant.m3u8',
};

beforeEach(() => {
  created.length = 0;
  localStorage.setItem('token', 'login-token');
});
afterEach(() => localStorage.clear());

describe('the player of an IVS recording', () => {
  it('plays the API playlist with hls.js, the login token on API requests only', async () => {
    const { unmount } = render(<RecordingPlayer stageId="N743AS" span={SPAN} />);
    await waitFor(() => expect(created).toHaveLength(1));
    const hls = created[0]!;
    expect(hls.sources).toEqual([SPAN.hls]);
    expect(hls.media).toBe(screen.getByTestId('recording-video'));

    const headers = (url: string) => {
      const set: Record<string, string> = {};
      const xhr = {
        open: vi.fn(),
        setRequestHeader: (name: string, value: string) => (set[name] = value),
      } as unknown as XMLHttpRequest;
      hls.config.xhrSetup(xhr, url);
      return set;
    };
    expect(
      headers(
        `${window.location.origin}/api/recordings/ivs/N743AS/st-One/PaRt1/high/playlist.m3u8`,
      ),
    ).toEqual({
      Authorization: 'Bearer login-token',
    });
    expect(
      headers('https://tc-rec.s3.eu-west-1.amazonaws.com/AbCd/1.mp4?X-Amz-Signature=ab'),
    ).toEqual({});
    expect(screen.queryByRole('alert')).toBeNull();
    unmount();
    expect(hls.destroyed).toBe(true);
  });

  it('reloads the playlist when a segment URL has expired, and says so when it cannot go on', async () => {
    render(<RecordingPlayer stageId="N743AS" span={SPAN} />);
    await waitFor(() => expect(created).toHaveLength(1));
    const hls = created[0]!;
    const networkError = { fatal: true, type: FakeHls.ErrorTypes.NETWORK_ERROR };
    hls.emit(FakeHls.Events.ERROR, { fatal: false, type: FakeHls.ErrorTypes.NETWORK_ERROR });
    expect(hls.sources).toHaveLength(1);
    hls.emit(FakeHls.Events.ERROR, networkError);
    expect(hls.sources).toEqual([SPAN.hls, SPAN.hls]);
    expect(screen.queryByRole('alert')).toBeNull();
    // Three in a row without a fragment between: it gives up, and says so.
    hls.emit(FakeHls.Events.ERROR, networkError);
    hls.emit(FakeHls.Events.ERROR, networkError);
    hls.emit(FakeHls.Events.ERROR, networkError);
    expect(await screen.findByRole('alert')).toHaveTextContent(recordingsText.playFailed);
  });
});

describe('the player started at an instant, where the browser allows no sound without a press', () => {
  afterEach(() => vi.restoreAllMocks());

  it('starts at the offset, plays muted when sound is refused, and offers sound', async () => {
    const play = vi
      .spyOn(HTMLMediaElement.prototype, 'play')
      .mockRejectedValueOnce(new DOMException('no sound without a press', 'NotAllowedError'))
      .mockResolvedValue(undefined);
    render(<RecordingPlayer stageId="N743AS" span={SPAN} startOffsetMs={90_000} />);
    await waitFor(() => expect(created).toHaveLength(1));
    const video = screen.getByTestId<HTMLVideoElement>('recording-video');
    video.dispatchEvent(new Event('loadedmetadata'));
    expect(video.currentTime).toBe(90);
    const soundOn = await screen.findByRole('button', { name: recordingsText.soundOn });
    expect(video.muted).toBe(true);
    expect(play).toHaveBeenCalledTimes(2);
    soundOn.click();
    await waitFor(() => expect(video.muted).toBe(false));
    expect(screen.queryByRole('button', { name: recordingsText.soundOn })).toBeNull();
  });
});
