/**
 * The 'Watch all' part's probe (parts/player.ts), added before the page's own scripts: for every
 * tile's <video>, when it came into the page and was given its stream, when its first frame was
 * presented (and its last packet arrived) and how many it has presented since, and the first
 * click of the page.
 */

export interface Tile {
  /** When its <video> came into the page, when it was given its stream (`loadstart`). */
  mountedAt: number;
  sourceAt?: number;
  firstFrameAt?: number;
  /** When the last packet of the first frame presented arrived. */
  firstFrameReceivedAt?: number;
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
  const tile: Tile = { mountedAt: performance.now(), presented: 0, width: 0 };
  tiles[id] = tile;
  if (video.srcObject) tile.sourceAt = tile.mountedAt;
  else video.addEventListener('loadstart', () => (tile.sourceAt ??= performance.now()));
  const onFrame = (now: number, metadata: VideoFrameCallbackMetadata) => {
    if (tile.firstFrameAt === undefined) {
      tile.firstFrameAt = now;
      tile.firstFrameReceivedAt = metadata.receiveTime;
    }
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
