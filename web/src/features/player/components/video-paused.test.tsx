/**
 * The stage's adaptation as the player shows it, over a fake stage SDK (docs/product.md#player,
 * #live-stats): a video paused for a slow link keeps its picture under a notice, never an error,
 * and the notice goes when it resumes; the stage's estimate is in 'Live stats'.
 */
import { act, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { uiText } from '@/config/ui-text';
import { statsText } from '@/config/ui-text-stats';
import { renderApp } from '@/testing/render-app';
import { FakeStageSdk, StageEvents, fakeTrack } from '@/testing/fake-stage-sdk';
import { signedInWithFakeStage } from '@/testing/media-stubs';

let sdk: FakeStageSdk;

beforeEach(() => {
  sdk = new FakeStageSdk();
  return signedInWithFakeStage(sdk);
});

/** A video stream as the local stage's SDK has it: layers, and the stage's adaptation news. */
function adaptingStream() {
  const track = fakeTrack('video');
  const listeners = new Set<() => void>();
  const adaptation = { videoPaused: false, estimateBps: undefined as number | undefined };
  const stream = {
    id: track.id,
    streamType: 'video' as const,
    mediaStreamTrack: track,
    requestRTCStats: () => Promise.resolve(undefined),
    getLayers: () => [
      {
        label: 'f',
        width: 640,
        height: 360,
        bitrateBps: 900_000,
        framesPerSecond: 30,
        selected: true,
      },
      {
        label: 'q',
        width: 160,
        height: 90,
        bitrateBps: 100_000,
        framesPerSecond: 15,
        selected: false,
      },
    ],
    getSelectedLayer: () => stream.getLayers()[0],
    isAdapting: true,
    getVideoAdaptation: () => ({ ...adaptation }),
    on: (event: string, listener: () => void) => {
      if (event === 'VIDEO_ADAPTATION_CHANGED') listeners.add(listener);
    },
    off: (event: string, listener: () => void) => {
      if (event === 'VIDEO_ADAPTATION_CHANGED') listeners.delete(listener);
    },
  };
  const tell = (videoPaused: boolean, estimateBps: number | undefined) =>
    act(() => {
      Object.assign(adaptation, { videoPaused, estimateBps });
      for (const listener of listeners) listener();
    });
  return { stream, tell, listeners };
}

async function playing() {
  const view = renderApp('/player/N743AS');
  await waitFor(() => expect(sdk.stages).toHaveLength(1));
  const adapting = adaptingStream();
  act(() => {
    sdk.lastStage.connect();
    sdk.lastStage.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, { id: 'publisher' }, [
      adapting.stream,
    ]);
  });
  await screen.findByRole('button', { name: uiText.player.statsButton });
  return { ...view, ...adapting };
}

describe('a video the stage adapts', () => {
  it('shows the paused notice over its picture while paused, never an error, and drops it on resume', async () => {
    const { tell } = await playing();
    expect(screen.queryByText(uiText.player.videoPaused)).not.toBeInTheDocument();
    tell(true, 60_000);
    const notice = screen.getByText(uiText.player.videoPaused).closest('[role="status"]');
    expect(notice).toBeInTheDocument();
    expect(screen.queryByText(uiText.player.errorTitle)).not.toBeInTheDocument();
    // The picture stays: the video is still there, its track still the one shown.
    expect(screen.getByLabelText(/N743AS/, { selector: 'video' })).toHaveAttribute(
      'data-state',
      'connected',
    );
    tell(false, 400_000);
    expect(screen.queryByText(uiText.player.videoPaused)).not.toBeInTheDocument();
  });

  it("shows the stage's estimate in 'Live stats' once it has one: 'Estimate 1.2 Mbit/s'", async () => {
    const { user, tell } = await playing();
    await user.click(screen.getByRole('button', { name: uiText.player.statsButton }));
    const panel = await screen.findByRole('region', { name: statsText.title });
    expect(panel).not.toHaveTextContent(statsText.estimate);
    tell(false, 1_234_567);
    expect(panel).toHaveTextContent('Estimate1.2 Mbit/s');
  });

  it('stops listening to the stream once it is gone', async () => {
    const { stream, listeners } = await playing();
    expect(listeners.size).toBe(1);
    act(() =>
      sdk.lastStage.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED, { id: 'publisher' }, [
        stream,
      ]),
    );
    expect(listeners.size).toBe(0);
  });
});
