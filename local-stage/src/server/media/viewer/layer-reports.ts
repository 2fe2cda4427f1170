/**
 * What a subscribed viewer is told of a simulcast publisher's layers (IVS's `LAYERS_CHANGED` and
 * `LAYER_SELECTED`, docs/decisions/0068-layer-choice.md): the layers arriving, when their set or
 * a size changes, and the layer it is sent, when that changes. Checked at the viewer's video
 * packets, so nothing runs while no video flows; a publisher of one encoding has nothing to tell.
 */
import type { StageMessage } from '../../../signalling';
import { isHigher, type VideoLayer, type VideoLayers } from '../publisher/video-layers';

/** The layers' set and sizes are compared at most this often (they change at key frames). */
const LAYERS_CHECK_MS = 250;

export class LayerReports {
  private layersCheckedAt = -Infinity;
  private layersKey: string | undefined;
  private reported: { rid: string | null; adapting: boolean; unavailable: boolean } | undefined;

  constructor(
    private readonly subscriptionId: string,
    private readonly send: (message: StageMessage) => void,
  ) {}

  /**
   * At a video packet: `current` is the layer forwarded, `preferredRid` the viewer's preference
   * (null: the stage chooses).
   */
  check(
    now: number,
    layers: VideoLayers,
    current: VideoLayer | undefined,
    preferredRid: string | null,
  ): void {
    if (layers.all.length < 2) return;
    if (now - this.layersCheckedAt >= LAYERS_CHECK_MS) {
      this.layersCheckedAt = now;
      this.checkLayers(now, layers);
    }
    const preferred = preferredRid === null ? undefined : layers.byRid(preferredRid);
    const unavailable = preferred !== undefined && !preferred.arriving(now);
    // Moving to the preferred layer (at its next key frame): the move will be told.
    if (preferred !== undefined && !unavailable && current !== preferred) return;
    const rid = current?.rid ?? null;
    const adapting = preferredRid === null;
    const last = this.reported;
    if (last?.rid === rid && last.adapting === adapting && last.unavailable === unavailable) return;
    this.reported = { rid, adapting, unavailable };
    this.send({
      type: 'layerSelected',
      subscriptionId: this.subscriptionId,
      rid,
      adapting,
      reason: unavailable ? 'unavailable' : 'selected',
    });
  }

  /** The viewer changed its preference: the next packet reports the selection again. */
  preferenceChanged(): void {
    this.reported = undefined;
  }

  private checkLayers(now: number, layers: VideoLayers): void {
    const arriving = layers.all
      .filter((layer) => layer.rid !== null && layer.arriving(now))
      .sort((a, b) => (isHigher(a, b, now) ? -1 : 1));
    const key = arriving.map((layer) => `${layer.rid}:${layer.width}x${layer.height}`).join(',');
    if (key === this.layersKey) return;
    this.layersKey = key;
    this.send({
      type: 'layers',
      subscriptionId: this.subscriptionId,
      layers: arriving.map((layer) => {
        const figures = layer.figures(now);
        return {
          rid: figures.rid ?? '',
          width: figures.width,
          height: figures.height,
          bitrate: figures.bitrate,
          frameRate: figures.frameRate,
        };
      }),
    });
  }
}
