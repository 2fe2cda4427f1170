import { useEffect, useState, type RefObject } from 'react';
import { layerForWidth, type VideoLayers } from '../lib/video-layers';

/**
 * A small picture asks for the layer that fits its width (a Watch all tile under 640 px wide
 * gets 320x180, docs/product.md#watch-all), so it does not take the top layer's bits for nothing.
 */
export function useLayerForWidth(
  boxRef: RefObject<HTMLElement | null>,
  layers: VideoLayers,
  preferLayer: (label: string | null) => void,
): void {
  const [width, setWidth] = useState(0);

  useEffect(() => {
    const box = boxRef.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.round(entry.contentRect.width));
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, [boxRef]);

  const wanted = layerForWidth(layers.layers, width);
  useEffect(() => preferLayer(wanted), [wanted, preferLayer]);
}
