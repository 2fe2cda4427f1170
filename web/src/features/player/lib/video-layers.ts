/**
 * The simulcast layers of the video a session shows, as the player offers them
 * (docs/product.md#quality): each named by its height ('360p'), 'Auto' for the stage's choice.
 */
import { fillText, uiText } from '@/config/ui-text';

export interface LayerOption {
  /** The SDK's layer label (the publisher's rid). */
  label: string;
  width: number;
  height: number;
}

export interface VideoLayers {
  /** Highest first; empty for a video of one encoding. */
  layers: readonly LayerOption[];
  /** The layer received now, if known. */
  selected: LayerOption | undefined;
  /** True while the stage chooses (Auto); false once the viewer chose a layer. */
  adapting: boolean;
  /** The layer asked for (as it was when asked: it may have stopped arriving); null: Auto. */
  preferred: LayerOption | null;
  /** The stage paused the video: not even the lowest layer fits the viewer's link. */
  videoPaused: boolean;
  /** The viewer's bandwidth as the stage estimates it, bits a second, when the stage says. */
  estimateBps: number | undefined;
}

export const NO_LAYERS: VideoLayers = {
  layers: [],
  selected: undefined,
  adapting: true,
  preferred: null,
  videoPaused: false,
  estimateBps: undefined,
};

/** The local stage SDK's adaptation news (not IVS's: docs/product.md#stage-sdk). */
export const VIDEO_ADAPTATION_CHANGED = 'VIDEO_ADAPTATION_CHANGED';

export interface AdaptingStream {
  getVideoAdaptation(): { videoPaused: boolean; estimateBps: number | undefined };
  on(event: typeof VIDEO_ADAPTATION_CHANGED, listener: () => void): void;
  off(event: typeof VIDEO_ADAPTATION_CHANGED, listener: () => void): void;
}

/** The stream, when its SDK tells the stage's adaptation (the local stage's does; IVS's not). */
export const adaptingStream = (stream: object): AdaptingStream | undefined =>
  'getVideoAdaptation' in stream && typeof stream.getVideoAdaptation === 'function'
    ? (stream as AdaptingStream)
    : undefined;

/** '360p': a layer by its height, as quality menus name them. */
export const layerName = (layer: Pick<LayerOption, 'height'>): string =>
  fillText(uiText.layers.layer, { height: String(layer.height) });

/**
 * The layer a picture `width` CSS pixels wide prefers: the highest no wider than it (the lowest
 * when all are), or null (the stage's choice) when that is the top layer anyway.
 */
export function layerForWidth(layers: readonly LayerOption[], width: number): string | null {
  if (layers.length < 2 || width <= 0) return null;
  const fitting = layers.find((layer) => layer.width <= width) ?? layers.at(-1);
  return fitting === undefined || fitting === layers[0] ? null : fitting.label;
}
