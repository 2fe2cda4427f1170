/**
 * The overlay's figures as the viewer reads them (docs/product.md#live-stats): milliseconds
 * whole, with a decimal under 10; the loss with one decimal; '–' for a figure not known yet.
 */
import { fillText } from '@/config/ui-text';
import { statsText as stats } from '@/config/ui-text-stats';
import type { PlaybackFigures } from './playback-stats';
import type { VideoLayers } from './video-layers';

export interface FigureRow {
  label: string;
  value: string;
}

function fixed(value: number, decimals: number): string {
  return value.toFixed(decimals);
}

function milliseconds(value: number | undefined): string {
  if (value === undefined) return stats.noValue;
  return fillText(stats.millisecondsValue, { value: fixed(value, Math.abs(value) < 10 ? 1 : 0) });
}

function whole(value: number | undefined): string {
  return value === undefined ? stats.noValue : fixed(value, 0);
}

/** 'Layer': the simulcast layer received, and whether the stage chose it; none for one encoding. */
function layerRows(layers: VideoLayers | undefined): FigureRow[] {
  const selected = layers?.selected;
  if (!layers || !selected) return [];
  const value = fillText(stats.layerValue, {
    width: String(selected.width),
    height: String(selected.height),
    label: selected.label,
    mode: layers.adapting ? stats.layerAuto : stats.layerChosen,
  });
  return [{ label: stats.layer, value }];
}

/** 'Estimate': the viewer's bandwidth as the stage estimates it, when it says (the local stage). */
function estimateRows(layers: VideoLayers | undefined): FigureRow[] {
  const estimate = layers?.estimateBps;
  if (estimate === undefined) return [];
  return [
    {
      label: stats.estimate,
      value: fillText(stats.estimateValue, { value: fixed(estimate / 1_000_000, 1) }),
    },
  ];
}

export function figureRows(figures: PlaybackFigures, layers?: VideoLayers): FigureRow[] {
  const size =
    figures.width !== undefined && figures.height !== undefined
      ? fillText(stats.resolutionValue, {
          width: whole(figures.width),
          height: whole(figures.height),
        })
      : stats.noValue;
  return [
    {
      label: figures.glassToGlassIsEstimate ? stats.latencyEstimate : stats.latency,
      value: milliseconds(figures.glassToGlassMs),
    },
    { label: stats.resolution, value: size },
    ...layerRows(layers),
    ...estimateRows(layers),
    {
      label: stats.frameRate,
      value: fillText(stats.frameRateValue, {
        decoded: whole(figures.decodedFps),
        shown: whole(figures.shownFps),
      }),
    },
    {
      label: stats.bitrate,
      value:
        figures.bitrateKbps === undefined
          ? stats.noValue
          : fillText(stats.bitrateValue, { value: whole(figures.bitrateKbps) }),
    },
    {
      label: stats.packetLoss,
      value:
        figures.lossPercent === undefined
          ? stats.noValue
          : fillText(stats.percentValue, { value: fixed(figures.lossPercent, 1) }),
    },
    { label: stats.jitter, value: milliseconds(figures.jitterMs) },
    { label: stats.roundTrip, value: milliseconds(figures.roundTripMs) },
    { label: stats.jitterBuffer, value: milliseconds(figures.jitterBufferMs) },
    { label: stats.decodeTime, value: milliseconds(figures.decodeMs) },
    { label: stats.codec, value: figures.codec ?? stats.noValue },
  ];
}
