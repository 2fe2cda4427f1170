import { useId } from 'react';
import { fillText, uiText } from '@/config/ui-text';
import { layerName, type VideoLayers } from '../lib/video-layers';

const AUTO = 'auto';

/**
 * 'Quality': Auto (the stage's choice) or one of the video's layers, by its height
 * (docs/product.md#quality). A native select: the keyboard, the screen reader and a phone's own
 * picker come with it. Rendered only for a video with more than one layer.
 */
export function QualityChoice({
  layers,
  onChoose,
}: {
  layers: VideoLayers;
  /** The label chosen (null: Auto) and what to announce. */
  onChoose: (label: string | null, announcement: string) => void;
}) {
  const id = useId();
  const { layers: text } = uiText;
  const showing = layers.adapting && layers.selected ? layers.selected : undefined;
  const autoText = showing ? fillText(text.autoShowing, { layer: layerName(showing) }) : text.auto;
  // A preferred layer that has stopped arriving is still the viewer's choice: keep it listed.
  const { preferred } = layers;
  const listed = layers.layers.some((layer) => layer.label === preferred?.label);
  return (
    <>
      <label htmlFor={id} className="sr-only">
        {text.label}
      </label>
      <select
        id={id}
        value={preferred?.label ?? AUTO}
        title={text.label}
        onChange={(event) => {
          const label = event.target.value === AUTO ? null : event.target.value;
          const chosen = layers.layers.find((layer) => layer.label === label);
          const choice = chosen ? layerName(chosen) : text.auto;
          onChoose(label, fillText(text.announced, { choice }));
        }}
        className="h-8 rounded-lg bg-slate-950/75 px-2 text-xs font-medium text-slate-200 ring-1 ring-slate-700/80 backdrop-blur-sm transition hover:bg-slate-800 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none"
      >
        <option value={AUTO}>{autoText}</option>
        {layers.layers.map((layer) => (
          <option key={layer.label} value={layer.label}>
            {layerName(layer)}
          </option>
        ))}
        {preferred && !listed && <option value={preferred.label}>{layerName(preferred)}</option>}
      </select>
    </>
  );
}
