import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { uiText } from '@/config/ui-text';
import { FakeStageSdk, fakeTrack } from '@/testing/fake-stage-sdk';
import { autoplayRefusal, FakeMediaStream, stubMedia } from '@/testing/media-stubs';
import { renderApp } from '@/testing/render-app';

let sdk: FakeStageSdk;
let tokenRequests: string[];

beforeEach(() => {
  localStorage.setItem('token', 'login-token');
  sdk = new FakeStageSdk();
  sdk.install();
  tokenRequests = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((_url: string, init: RequestInit) => {
      const { stageId } = JSON.parse(String(init.body)) as { stageId: string };
      tokenRequests.push(stageId);
      if (stageId === 'N953AS') {
        return Promise.resolve(
          new Response(JSON.stringify({ error: 'Unknown stream: N953AS' }), { status: 404 }),
        );
      }
      return Promise.resolve(
        new Response(JSON.stringify({ token: `participant-for-${stageId}` }), { status: 200 }),
      );
    }),
  );
  stubMedia();
  return () => {
    delete window.IVSBroadcastClient;
  };
});

const stageOf = (stageId: string) => {
  const stage = sdk.stages.find((candidate) => candidate.token === `participant-for-${stageId}`);
  if (!stage) throw new Error(`no stage joined for ${stageId}`);
  return stage;
};

describe('Watch all', () => {
  it("is reached from /home by 'Watch all', titled, in the grid of /home", async () => {
    const { user } = renderApp('/home');
    await user.click(screen.getByRole('link', { name: uiText.home.watchAllLabel }));
    // The page loads when first opened (docs/product.md#routes): /home stays until it is there.
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/watch-all'));
    expect(await screen.findByRole('heading', { name: uiText.watchAll.title })).toBeInTheDocument();
    expect(screen.getByText(uiText.watchAll.subtitle)).toBeInTheDocument();
    expect(document.title).toBe(uiText.watchAll.documentTitle);
    expect(screen.getByRole('list', { name: uiText.watchAll.tileList })).toHaveClass(
      'grid-cols-1',
      'md:grid-cols-2',
      'lg:grid-cols-3',
    );
  });

  it('gives each tile a session of its own: its own token and stage, and a failure stays in its tile', async () => {
    const { user } = renderApp('/watch-all');
    await waitFor(() => expect(sdk.stages).toHaveLength(2));
    expect([...tokenRequests].sort()).toEqual(['N743AS', 'N953AS', 'N954AS']);

    const tracks = { N743AS: fakeTrack('video'), N954AS: fakeTrack('video') };
    act(() => {
      for (const [stageId, track] of Object.entries(tracks)) {
        stageOf(stageId).connect();
        stageOf(stageId).addVideoStream(track);
      }
    });
    for (const [stageId, track] of Object.entries(tracks)) {
      const video = screen.getByLabelText(`Live video from ${stageId}`) as HTMLVideoElement;
      expect((video.srcObject as unknown as FakeMediaStream).tracks).toEqual([track]);
      expect(video.muted).toBe(true);
      expect(video.controls).toBe(false);
    }

    // N953AS alone shows its error, with a retry of its own; the others keep playing.
    const failed = screen.getByRole('alert');
    expect(failed).toHaveTextContent('Unknown stream: N953AS');
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    await user.click(within(failed).getByRole('button', { name: uiText.player.retry }));
    expect(tokenRequests.filter((stageId) => stageId === 'N953AS')).toHaveLength(2);
    expect(sdk.stages.every((stage) => stage.leaveCalls === 0)).toBe(true);
  });

  it('makes each tile a link to its player, named for it, with the tail number on it', async () => {
    const { user } = renderApp('/watch-all');
    const tiles = within(await screen.findByRole('list', { name: uiText.watchAll.tileList }));
    for (const stageId of ['N743AS', 'N953AS', 'N954AS']) {
      expect(tiles.getByRole('link', { name: `${stageId}: Open player` })).toHaveTextContent(
        stageId,
      );
    }
    await user.click(tiles.getByRole('link', { name: 'N954AS: Open player' }));
    expect(screen.getByTestId('location')).toHaveTextContent('/player/N954AS');
  });

  it('plays a tile the browser refused to autoplay on a click on its notice, and stays on the page', async () => {
    const { playSpy } = stubMedia(autoplayRefusal);
    const { user } = renderApp('/watch-all');
    await waitFor(() => expect(sdk.stages).toHaveLength(2));
    act(() => {
      stageOf('N743AS').connect();
      stageOf('N743AS').addVideoStream(fakeTrack('video'));
    });
    const notice = await screen.findByRole('button', { name: uiText.errors.autoplayBlocked });

    playSpy.mockImplementation(() => Promise.resolve());
    await user.click(notice);
    await waitFor(() =>
      expect(
        screen.queryByRole('button', { name: uiText.errors.autoplayBlocked }),
      ).not.toBeInTheDocument(),
    );
    expect(playSpy).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId('location')).toHaveTextContent('/watch-all');
  });

  describe('with a browser that has requestVideoFrameCallback', () => {
    const requestFrame = vi.fn(() => 1);

    beforeEach(() => {
      Object.assign(HTMLVideoElement.prototype, { requestVideoFrameCallback: requestFrame });
    });

    afterEach(() => {
      delete (HTMLVideoElement.prototype as Partial<HTMLVideoElement>).requestVideoFrameCallback;
      requestFrame.mockClear();
    });

    it('watches no tile frame by frame: the quality reads its frame rate once a second', async () => {
      renderApp('/watch-all');
      await waitFor(() => expect(sdk.stages).toHaveLength(2));
      act(() => {
        for (const stageId of ['N743AS', 'N954AS']) {
          stageOf(stageId).connect();
          stageOf(stageId).addVideoStream(fakeTrack('video'));
        }
      });
      expect(screen.getAllByLabelText(/^Live video from/)).toHaveLength(3);
      expect(requestFrame).not.toHaveBeenCalled();
    });
  });

  it('leaves every stage when the viewer leaves the page', async () => {
    const { user } = renderApp('/watch-all');
    await waitFor(() => expect(sdk.stages).toHaveLength(2));
    act(() => sdk.stages.forEach((stage) => stage.connect()));
    await user.click(screen.getByRole('link', { name: uiText.player.back }));
    expect(sdk.stages.map((stage) => stage.leaveCalls)).toEqual([1, 1]);
    expect(sdk.stages.map((stage) => stage.listenerCount())).toEqual([0, 0]);
  });
});
