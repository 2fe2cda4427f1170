export type PlayOutcome = 'playing' | 'autoplay-blocked' | 'interrupted';

/**
 * Shows a track in a video element, muted, and starts playback. A browser that refuses to
 * autoplay answers `autoplay-blocked`; a play() cut short by a newer source is `interrupted`.
 */
export async function attachVideoTrack(
  video: HTMLVideoElement,
  track: MediaStreamTrack,
): Promise<PlayOutcome> {
  video.muted = true;
  video.srcObject = new MediaStream([track]);
  return playVideo(video);
}

export async function playVideo(video: HTMLVideoElement): Promise<PlayOutcome> {
  try {
    await video.play();
    return 'playing';
  } catch (error) {
    return error instanceof DOMException && error.name === 'NotAllowedError'
      ? 'autoplay-blocked'
      : 'interrupted';
  }
}
