/** The player's quality choice and the stats' layer over a fake stage SDK (docs/product.md#quality). */
import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { uiText } from '@/config/ui-text';
import { statsText } from '@/config/ui-text-stats';
import { renderApp } from '@/testing/render-app';
import { FakeStageSdk, StageEvents, fakeTrack } from '@/testing/fake-stage-sdk';
import { signedInWithFakeStage, stubMedia } from '@/testing/media-stubs';

let sdk: FakeStageSdk;

beforeEach(() => {
  sdk = new FakeStageSdk();
  return signedInWithFakeStage(sdk);
});

const LAYERS = [
  { label: 'f', width: 640, height: 360, bitrateBps: 900_000, framesPerSecond: 30 },
  { label: 'h', width: 320, height: 180, bitrateBps: 370_000, framesPerSecond: 20 },
  { label: 'q', width: 160, height: 90, bitrateBps: 100_000, framesPerSecond: 15 },
];

/** A video stream of a simulcast publisher, as the SDK has it: its layers and the one selected. */
function layeredStream(layers = LAYERS) {
  const track = fakeTrack('video');
  const state = { selected: 'f', adapting: true };
  const stream = {
    id: track.id,
    streamType: 'video' as const,
    mediaStreamTrack: track,
    requestRTCStats: () => Promise.resolve(undefined),
    getLayers: () =>
      layers.map((layer) => ({ ...layer, selected: layer.label === state.selected })),
    getSelectedLayer: () => stream.getLayers().find((layer) => layer.selected),
    get isAdapting() {
      return state.adapting;
    },
  };
  return { stream, state };
}

async function playingLayered(layers = LAYERS) {
  const view = renderApp('/player/N743AS');
  await waitFor(() => expect(sdk.stages).toHaveLength(1));
  const layered = layeredStream(layers);
  act(() => {
    sdk.lastStage.connect();
    sdk.lastStage.emit(StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, { id: 'publisher' }, [
      layered.stream,
    ]);
  });
  return { ...view, ...layered };
}

const preferred = () => sdk.lastStage.strategy.preferredLayerForStream?.({} as never, {} as never);

describe('the quality choice', () => {
  it("offers 'Auto' (with the layer shown) and each layer by its height, and asks the stage for the one chosen", async () => {
    const { user, stream, state } = await playingLayered();
    const choice = await screen.findByRole('combobox', { name: uiText.layers.label });
    expect(
      within(choice)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Auto (360p)', '360p', '180p', '90p']);
    expect(preferred()).toBeNull();

    const refresh = vi.fn();
    Object.assign(sdk.lastStage, { refreshStrategy: refresh });
    choice.focus();
    await user.selectOptions(choice, '90p');
    expect(preferred()).toBe('q');
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(screen.getByText('Quality: 90p')).toBeInTheDocument();

    // The stage moves: the SDK says the layer is selected, not adapting.
    act(() => {
      state.selected = 'q';
      state.adapting = false;
      sdk.lastStage.emit(StageEvents.STAGE_STREAM_LAYER_SELECTED, { id: 'publisher' }, stream);
    });
    expect(choice).toHaveValue('q');
    expect(within(choice).getAllByRole('option')[0]).toHaveTextContent('Auto');

    await user.selectOptions(choice, 'Auto');
    expect(preferred()).toBeNull();
    expect(screen.getByText('Quality: Auto')).toBeInTheDocument();
  });

  it('keeps the choice across a reconnect: the new stage is asked for the same layer', async () => {
    const { user } = await playingLayered();
    const choice = await screen.findByRole('combobox', { name: uiText.layers.label });
    Object.assign(sdk.lastStage, { refreshStrategy: vi.fn() });
    await user.selectOptions(choice, '180p');
    const first = sdk.lastStage;
    act(() => first.dropConnection());
    await waitFor(() => expect(sdk.stages.length).toBeGreaterThan(1));
    expect(sdk.lastStage).not.toBe(first);
    expect(preferred()).toBe('h');
  });

  it('waits for the first frame: not offered while the video has not started playing (decision 0091)', async () => {
    let started: () => void = () => undefined;
    stubMedia(() => new Promise<void>((resolve) => (started = resolve)));
    await playingLayered();
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByRole('combobox', { name: uiText.layers.label })).not.toBeInTheDocument();
    act(() => started());
    expect(await screen.findByRole('combobox', { name: uiText.layers.label })).toBeInTheDocument();
  });

  it('is not shown for a video of one layer', async () => {
    await playingLayered([LAYERS[0]!]);
    await screen.findByRole('button', { name: uiText.player.statsButton });
    expect(screen.queryByRole('combobox', { name: uiText.layers.label })).not.toBeInTheDocument();
  });

  it("shows the layer received in 'Live stats': '640 × 360 (f), auto'", async () => {
    const { user } = await playingLayered();
    await user.click(screen.getByRole('button', { name: uiText.player.statsButton }));
    const panel = await screen.findByRole('region', { name: statsText.title });
    expect(panel).toHaveTextContent('Layer640 × 360 (f), auto');
  });
});
