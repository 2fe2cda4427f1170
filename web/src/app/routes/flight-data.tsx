/**
 * The flight data over a live picture (docs/product.md#flight-data), composed here from the
 * player's in-band messages (each shown with the frame it was captured with) and the flight-data
 * feature's HUD: a chunk of its own, fetched once the
 * first picture is there (as the rewind is, decision 0093). In the player: the HUD over the video's
 * foot and its toggle among the controls, once a sample has come; in a Watch all tile, altitude
 * and speed.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { createPortal } from 'react-dom';
import { FlightHud } from '@/features/flight-data/components/flight-hud';
import { FlightHudToggle } from '@/features/flight-data/components/flight-hud-toggle';
import { useAnnounceWhenFree } from '@/lib/use-announce-when-free';
import { useFlightHudToggle } from '@/features/flight-data/hooks/use-flight-hud-toggle';
import { flightSampleFromPayload } from '@/features/flight-data/lib/flight-payload';
import { FrameAlignedSamples, MAX_HOLD_MS } from '@/features/flight-data/lib/frame-aligned';
import { LiveFlightData } from '@/features/flight-data/lib/live-flight-data';
import type { FlightDataSlot } from '@/features/player/components/stream-player';

/** A player with no live region (none says anything), and a region where nothing was said. */
const NO_ANNOUNCER = () => undefined;
const NEVER = { current: -Infinity } as const;

const CONTROL_BUTTON =
  'inline-flex size-8 items-center justify-center rounded-lg bg-slate-950/75 text-slate-200 ring-1 ring-slate-700/80 backdrop-blur-sm transition hover:bg-slate-800 hover:text-white focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:outline-none aria-pressed:bg-sky-500 aria-pressed:text-slate-950 aria-pressed:ring-sky-300';

/**
 * The live store of one picture, fed by its video's in-band messages while mounted, each sample
 * once the frame it was captured with is on screen (frame-aligned.ts).
 */
function useLiveFlightData(
  onInBandMessage: FlightDataSlot['onInBandMessage'],
  videoBox: HTMLDivElement | null,
): LiveFlightData {
  const [store] = useState(() => new LiveFlightData());
  const [aligned] = useState(() => new FrameAlignedSamples((sample) => store.push(sample)));
  useEffect(() => {
    const video = videoBox?.querySelector('video');
    const frames = video && 'requestVideoFrameCallback' in video ? video : undefined;
    // Frames are watched only while a sample waits for its own (a few frames a second at most).
    let handle: number | undefined;
    const onFrame = (_now: number, metadata: VideoFrameCallbackMetadata) => {
      handle = undefined;
      const capture = metadata.captureTime;
      aligned.framePresented(
        capture !== undefined && capture > 0 ? performance.timeOrigin + capture : undefined,
      );
      if (aligned.holding && frames) handle = frames.requestVideoFrameCallback(onFrame);
    };
    const stop = onInBandMessage(({ payload }) => {
      const sample = flightSampleFromPayload(payload);
      if (!sample) return;
      aligned.add(sample);
      if (!frames)
        aligned.framePresented(undefined); // no frames to go by: as it comes
      else handle ??= frames.requestVideoFrameCallback(onFrame);
    });
    // A paused or hidden video presents no frames: what is held goes after its bound anyway.
    const timer = setInterval(() => aligned.flushOld(), MAX_HOLD_MS);
    return () => {
      stop();
      if (handle !== undefined) frames?.cancelVideoFrameCallback(handle);
      clearInterval(timer);
    };
  }, [onInBandMessage, videoBox, aligned]);
  useEffect(() => () => store.dispose(), [store]);
  return store;
}

export function PlayerFlightData({
  onInBandMessage,
  videoBox,
  controls,
  announce,
  announcedAt,
  keysEnabled,
}: FlightDataSlot) {
  const store = useLiveFlightData(onInBandMessage, videoBox);
  // A change of phase comes by itself: it waits for the region's last message to stand.
  const announcePhase = useAnnounceWhenFree(announce ?? NO_ANNOUNCER, announcedAt ?? NEVER);
  const { shown, toggle } = useFlightHudToggle({ onAnnounce: announce, keyEnabled: keysEnabled });
  // The toggle only once there is something to show: a publisher that sends none has no button.
  const status = useSyncExternalStore(store.subscribe, () => store.getSnapshot().status);
  return (
    <>
      {shown &&
        videoBox &&
        createPortal(<FlightHud mode="live" store={store} onAnnounce={announcePhase} />, videoBox)}
      {status !== 'none' &&
        controls &&
        createPortal(
          <FlightHudToggle shown={shown} onToggle={toggle} className={CONTROL_BUTTON} />,
          controls,
        )}
    </>
  );
}

export function TileFlightData({ onInBandMessage, videoBox }: FlightDataSlot) {
  const store = useLiveFlightData(onInBandMessage, videoBox);
  return videoBox && createPortal(<FlightHud mode="live" store={store} variant="tile" />, videoBox);
}
