import { vi } from 'vitest';

/** jsdom has no MediaStream and no media playback; these stand in for the browser's. */
export class FakeMediaStream {
  constructor(readonly tracks: MediaStreamTrack[]) {}
  getVideoTracks(): MediaStreamTrack[] {
    return this.tracks.filter((track) => track.kind === 'video');
  }
}

export function stubMedia(play: () => Promise<void> = () => Promise.resolve()) {
  vi.stubGlobal('MediaStream', FakeMediaStream);
  const playSpy = vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(play);
  return { playSpy };
}

export function autoplayRefusal(): Promise<void> {
  return Promise.reject(
    new DOMException('play() failed because the user did not interact', 'NotAllowedError'),
  );
}

/**
 * A signed-in viewer whose player meets `sdk` (installed as the stage SDK global), its participant
 * token fetched from a stubbed API, and media stubbed. Returns the undo, for a `beforeEach`.
 */
export function signedInWithFakeStage(sdk: { install(): void }): () => void {
  localStorage.setItem('token', 'login-token');
  sdk.install();
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify({ token: 'participant' }), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      ),
    ),
  );
  stubMedia();
  return () => {
    delete window.IVSBroadcastClient;
  };
}
