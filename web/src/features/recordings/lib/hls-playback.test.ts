/**
 * hls.js's playback of an IVS recording (hls-playback.ts), hls.js faked: a recording starts at
 * its beginning or at the start asked for (a recording still being written too, which hls.js
 * would start near its end), and a playlist reloaded after its segment URLs expired starts where
 * the video was.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeHls } from '../testing/fake-hls';
import { playHls } from './hls-playback';

const created = FakeHls.created;

vi.mock('hls.js/light', async () => ({
  default: (await import('../testing/fake-hls')).FakeHls,
}));

const PLAYLIST = '/api/recordings/ivs/N743AS/st-One/PaRt2/multivariant.m3u8';
let stop: () => void = () => undefined;

beforeEach(() => (created.length = 0));
afterEach(() => stop());

async function started(startS?: number) {
  const video = document.createElement('video');
  stop = playHls(video, PLAYLIST, vi.fn(), startS === undefined ? {} : { startS });
  await vi.waitFor(() => expect(created).toHaveLength(1));
  return { video, hls: created[0]! };
}

describe('an IVS recording played with hls.js', () => {
  it('starts at its beginning unless a start is given, then there', async () => {
    expect((await started()).hls.config.startPosition).toBe(0);
    stop();
    created.length = 0;
    expect((await started(7_170)).hls.config.startPosition).toBe(7_170);
  });

  it('reloads its playlist after a fatal network error, from where the video was', async () => {
    const { video, hls } = await started(30);
    video.currentTime = 642;
    hls.emit(FakeHls.Events.ERROR, { fatal: true, type: FakeHls.ErrorTypes.NETWORK_ERROR });
    expect(hls.sources).toHaveLength(2);
    expect(hls.config.startPosition).toBe(642);
    stop();
    expect(hls.destroyed).toBe(true);
  });
});
