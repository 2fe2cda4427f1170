/**
 * The 'Watch all' part's probe (parts/player.ts), added before the page's own scripts: for every
 * tile's <video>, when its first frame was presented and how many it has presented since, and the
 * first click of the page.
 */

export interface Tile {
  firstFrameAt?: number;
  presented: number;
  /** The width of the last frame presented: which simulcast layer the tile plays. */
  width: number;
}

declare global {
  interface Window {
    /** Each tile by its aircraft (from the video's label). */
    __tiles: Record<string, Tile>;
    __clickAt: number | undefined;
  }
}

const tiles: Record<string, Tile> = {};
window.__tiles = tiles;
document.addEventListener(
  'click',
  () => {
    window.__clickAt ??= performance.now();
  },
  true,
);
const watch = (video: HTMLVideoElement) => {
  const id = (video.getAttribute('aria-label') || '').replace('Live video from ', '');
  if (!id || tiles[id]) return;
  const tile: Tile = { firstFrameAt: undefined, presented: 0, width: 0 };
  tiles[id] = tile;
  const onFrame = (now: number, metadata: VideoFrameCallbackMetadata) => {
    if (tile.firstFrameAt === undefined) tile.firstFrameAt = now;
    tile.presented = metadata.presentedFrames;
    tile.width = metadata.width;
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
};
new MutationObserver(() => document.querySelectorAll('video').forEach(watch)).observe(document, {
  subtree: true,
  childList: true,
});
