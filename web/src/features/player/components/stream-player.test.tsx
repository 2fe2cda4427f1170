/**
 * The player over a fake stage SDK: every state of the spec's player, its overlays and its
 * reconnects. It stays whole just past 400 lines: its cases share the fake SDK's set-up.
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { uiText } from '@/config/ui-text';
import { statsText } from '@/config/ui-text-stats';
import { callsBesideThumbnails, isRecordingsRequest } from '@/testing/api-calls';
import { shortcutsText } from '@/config/ui-text-shortcuts';
import { renderApp } from '@/testing/render-app';
import { StreamPlayer } from './stream-player';
import { FakeStageSdk, fakeTrack } from '@/testing/fake-stage-sdk';
import { autoplayRefusal, FakeMediaStream, stubMedia } from '@/testing/media-stubs';

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

let sdk: FakeStageSdk;
let tokenCount: number;
let fetchSpy: ReturnType<typeof vi.fn>;

beforeEach(() => {
  localStorage.setItem('token', 'login-token');
  sdk = new FakeStageSdk();
  sdk.install();
  tokenCount = 0;
  fetchSpy = vi.fn((input: unknown) =>
    Promise.resolve(
      isRecordingsRequest(input)
        ? jsonResponse(200, { aircraft: [] }) // the rewind's: nothing recorded
        : jsonResponse(200, { token: `participant-${++tokenCount}` }),
    ),
  );
  vi.stubGlobal('fetch', fetchSpy);
  stubMedia();
  return () => {
    delete window.IVSBroadcastClient;
  };
});

async function openPlayer(streamId = 'N743AS') {
  const view = renderApp(`/player/${streamId}`);
  await waitFor(() => expect(sdk.stages).toHaveLength(1));
  return view;
}

function video(): HTMLVideoElement {
  return screen.getByLabelText(/Live video from/) as HTMLVideoElement;
}

describe('player page', () => {
  it("shows 'Connecting to stream...' and 'This may take a few moments' until the stage connects", async () => {
    await openPlayer();
    expect(screen.getByText(uiText.player.connecting)).toBeInTheDocument();
    expect(screen.getByText(uiText.player.connectingNote)).toBeInTheDocument();
    act(() => sdk.lastStage.connect());
    expect(screen.queryByText(uiText.player.connecting)).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('has a video that is muted, autoplays, has controls and plays inline', async () => {
    await openPlayer();
    const element = video();
    expect(element.muted).toBe(true);
    expect(element.autoplay).toBe(true);
    expect(element.controls).toBe(true);
    expect(element).toHaveAttribute('playsinline');
  });

  it("has a back button to /home labelled 'Back to Selection', or 'Back' on small screens", async () => {
    const { user } = await openPlayer();
    expect(screen.getByText(uiText.player.back)).toHaveClass('hidden', 'sm:inline');
    expect(screen.getByText(uiText.player.backShort)).toHaveClass('sm:hidden');
    await user.click(screen.getByRole('link', { name: /Back/ }));
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
  });

  it('asks for a participant token with the stored token, the stage id and a session-wide client id', async () => {
    await openPlayer('N953AS');
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    const [url, init] = fetchSpy.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/token');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({
      'Content-Type': 'application/json',
      Authorization: 'Bearer login-token',
    });
    const body = JSON.parse(String(init.body)) as { stageId: string; clientId: string };
    expect(body.stageId).toBe('N953AS');
    expect(body.clientId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const key = Object.keys(sessionStorage).find((name) => name.endsWith('viewer_client_id'));
    expect(key && sessionStorage.getItem(key)).toBe(body.clientId);
    expect(sdk.lastStage.token).toBe('participant-1');
  });

  it('publishes nothing and subscribes to the video of participants only', async () => {
    await openPlayer();
    const { strategy } = sdk.lastStage;
    const participant = {} as Parameters<typeof strategy.shouldPublishParticipant>[0];
    expect(strategy.stageStreamsToPublish()).toEqual([]);
    expect(strategy.shouldPublishParticipant(participant)).toBe(false);
    expect(strategy.shouldSubscribeToParticipant(participant)).toEqual(['video']);
  });

  it('attaches the first video track of added streams to the video and plays it', async () => {
    const { playSpy } = stubMedia();
    await openPlayer();
    const track = fakeTrack('video');
    act(() => {
      sdk.lastStage.connect();
      sdk.lastStage.addVideoStream(track);
    });
    const source = video().srcObject as unknown as FakeMediaStream;
    expect(source.tracks).toEqual([track]);
    expect(playSpy).toHaveBeenCalled();
  });

  it("shows 'Browser blocked autoplay. Please click the video to play.' and plays on a click", async () => {
    const { playSpy } = stubMedia(autoplayRefusal);
    const { user } = await openPlayer();
    act(() => {
      sdk.lastStage.connect();
      sdk.lastStage.addVideoStream(fakeTrack('video'));
    });
    expect(await screen.findByText(uiText.errors.autoplayBlocked)).toBeInTheDocument();

    playSpy.mockImplementation(() => Promise.resolve());
    await user.click(video());
    await waitFor(() =>
      expect(screen.queryByText(uiText.errors.autoplayBlocked)).not.toBeInTheDocument(),
    );
    expect(playSpy).toHaveBeenCalledTimes(2);
  });

  it.each<[string, () => Promise<Response>, string]>([
    [
      'the server error text when the token call is refused',
      () => Promise.resolve(jsonResponse(404, { error: 'Unknown stream: N743AS' })),
      'Unknown stream: N743AS',
    ],
    [
      "'Failed to fetch participant token' when a refusal has no error text",
      () => Promise.resolve(new Response('<html>Bad gateway</html>', { status: 502 })),
      uiText.errors.tokenFetchFailed,
    ],
    [
      "'Failed to fetch participant token' when the token call cannot reach the server",
      () => Promise.reject(new TypeError('Failed to fetch')),
      uiText.errors.tokenFetchFailed,
    ],
    [
      "'Failed to fetch participant token' when a 200 carries no token",
      () => Promise.resolve(jsonResponse(200, {})),
      uiText.errors.tokenFetchFailed,
    ],
    [
      'the server error text of a 401, without logging the viewer out',
      () => Promise.resolve(jsonResponse(401, { error: 'Invalid or expired token' })),
      'Invalid or expired token',
    ],
  ])("shows 'Stream Unavailable' with %s", async (_name, answer, message) => {
    fetchSpy.mockImplementation(answer);
    renderApp('/player/N743AS');
    const overlay = await screen.findByRole('alert');
    expect(overlay).toHaveTextContent(uiText.player.errorTitle);
    expect(overlay).toHaveTextContent(message);
    expect(screen.getByRole('button', { name: uiText.player.retry })).toBeInTheDocument();
    expect(sdk.stages).toHaveLength(0);
    expect(localStorage.getItem('token')).toBe('login-token');
    expect(screen.getByTestId('location')).toHaveTextContent('/player/N743AS');
  });

  it("shows 'Authentication token not found. Please log in again.' when no token is stored at fetch time", async () => {
    localStorage.removeItem('token');
    // Past the route guard (which only runs on navigation), the player checks again itself.
    render(<StreamPlayer streamId="N743AS" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(uiText.errors.noAuthToken);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('says the broadcast SDK is not loaded when the global script is missing', async () => {
    delete window.IVSBroadcastClient;
    renderApp('/player/N743AS');
    expect(await screen.findByRole('alert')).toHaveTextContent(uiText.errors.sdkNotLoaded);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("shows a join failure's own message, and 'An unknown error occurred' when it has none", async () => {
    const { user } = await openPlayer();
    act(() => sdk.lastStage.failJoin(new Error('[JOIN_ERROR] Operation timed out')));
    expect(await screen.findByRole('alert')).toHaveTextContent('[JOIN_ERROR] Operation timed out');

    await user.click(screen.getByRole('button', { name: uiText.player.retry }));
    await waitFor(() => expect(sdk.stages).toHaveLength(2));
    act(() => sdk.lastStage.failJoin(new Error('')));
    expect(await screen.findByRole('alert')).toHaveTextContent(uiText.errors.unknown);
  });

  it('shows the message of a Stage constructor that throws', async () => {
    sdk.nextConstructorError = new Error('[JOIN_ERROR] Token is malformed');
    renderApp('/player/N743AS');
    expect(await screen.findByRole('alert')).toHaveTextContent('[JOIN_ERROR] Token is malformed');
  });

  it("shows a stage error's message, and 'An unknown stage error occurred.' when it has none", async () => {
    const { user } = await openPlayer();
    act(() => sdk.lastStage.connect());
    act(() => sdk.lastStage.emit('error', { name: 'StageError', message: 'Subscribe failed' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Subscribe failed');
    expect(sdk.stages[0]?.leaveCalls).toBe(1);

    await user.click(screen.getByRole('button', { name: uiText.player.retry }));
    await waitFor(() => expect(sdk.stages).toHaveLength(2));
    act(() => sdk.lastStage.emit('error', { name: 'StageError', message: '' }));
    expect(screen.getByRole('alert')).toHaveTextContent(uiText.errors.unknownStageError);
    expect(screen.queryByText(uiText.player.connecting)).not.toBeInTheDocument();
  });

  it("'Retry Connection' fetches a new participant token and joins with it", async () => {
    fetchSpy.mockImplementationOnce(() =>
      Promise.resolve(jsonResponse(502, { error: 'The stage service is unavailable' })),
    );
    const { user } = renderApp('/player/N743AS');
    await screen.findByRole('alert');
    await user.click(screen.getByRole('button', { name: uiText.player.retry }));
    expect(screen.getByText(uiText.player.connecting)).toBeInTheDocument();
    await waitFor(() => expect(sdk.stages).toHaveLength(1));
    expect(fetchSpy).toHaveBeenCalledTimes(2);
    expect(sdk.lastStage.token).toBe('participant-1');
    act(() => sdk.lastStage.connect());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it("shows 'Connection lost. Reconnecting...', leaves, and rejoins with a new token after a drop", async () => {
    await openPlayer();
    const first = sdk.lastStage;
    act(() => first.connect());
    act(() => first.dropConnection());

    expect(screen.getByText(uiText.errors.connectionLost)).toBeInTheDocument();
    expect(first.leaveCalls).toBe(1);
    expect(first.listenerCount()).toBe(0);
    await waitFor(() => expect(sdk.stages).toHaveLength(2));
    expect(sdk.lastStage.token).toBe('participant-2');

    act(() => sdk.lastStage.connect());
    expect(screen.queryByText(uiText.errors.connectionLost)).not.toBeInTheDocument();
    expect(sdk.stages).toHaveLength(2); // the app's own leave did not start another reconnect
  });

  it('joins once and plays under StrictMode, which mounts, unmounts and mounts again', async () => {
    render(
      <StrictMode>
        <StreamPlayer streamId="N743AS" />
      </StrictMode>,
    );
    await waitFor(() => expect(sdk.stages).toHaveLength(1));
    act(() => sdk.lastStage.connect());
    expect(screen.queryByText(uiText.player.connecting)).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(sdk.lastStage.leaveCalls).toBe(0);
  });

  it('leaves the stage and removes every listener when the viewer leaves the page', async () => {
    const { user } = await openPlayer();
    const stage = sdk.lastStage;
    act(() => stage.connect());
    expect(stage.listenerCount()).toBeGreaterThan(0);
    await user.click(screen.getByRole('link', { name: uiText.header.homeLink }));
    expect(stage.leaveCalls).toBe(1);
    expect(stage.listenerCount()).toBe(0);
    expect(callsBesideThumbnails(fetchSpy)).toHaveLength(1);
  });

  describe('beyond the spec: waiting for video, live stats, keyboard', () => {
    it("says 'Waiting for video from N743AS' after 2 s connected with no video, then plays the next one", async () => {
      await openPlayer();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        act(() => sdk.lastStage.connect());
        act(() => vi.advanceTimersByTime(1_999));
        expect(screen.queryByText('Waiting for video from N743AS')).not.toBeInTheDocument();
        act(() => vi.advanceTimersByTime(1));
        const notice = screen.getByText('Waiting for video from N743AS').closest('[role="status"]');
        expect(notice).toHaveTextContent(uiText.player.waitingForVideoNote);
        expect(screen.queryByRole('alert')).not.toBeInTheDocument(); // not an error
        expect(screen.queryByText(uiText.player.connecting)).not.toBeInTheDocument();

        const track = fakeTrack('video');
        act(() => sdk.lastStage.addVideoStream(track));
        expect(screen.queryByText('Waiting for video from N743AS')).not.toBeInTheDocument();
        expect((video().srcObject as unknown as FakeMediaStream).tracks).toEqual([track]);
      } finally {
        vi.useRealTimers();
      }
    });

    it("toggles 'Live stats' with its button and with i, and announces it", async () => {
      const { user } = await openPlayer();
      act(() => {
        sdk.lastStage.connect();
        sdk.lastStage.addVideoStream(fakeTrack('video'));
      });
      const button = screen.getByRole('button', { name: uiText.player.statsButton });
      expect(button).toHaveAttribute('aria-pressed', 'false');
      await user.click(button);
      expect(button).toHaveAttribute('aria-pressed', 'true');
      // The panel is a chunk of its own, loaded once the video plays (a poll, not a sleep).
      const panel = await screen.findByRole('region', { name: statsText.title });
      expect(panel).toHaveTextContent('Glass to glass–');
      expect(screen.getByText(uiText.shortcuts.statsShown)).toBeInTheDocument();

      await user.keyboard('i');
      expect(screen.queryByRole('region', { name: statsText.title })).not.toBeInTheDocument();
      expect(screen.getByText(uiText.shortcuts.statsHidden)).toBeInTheDocument();
      await user.keyboard('i');
      expect(screen.getByRole('region', { name: statsText.title })).toBeInTheDocument();
    });

    describe('with a browser that has requestVideoFrameCallback', () => {
      const requestFrame = vi.fn(() => 1);
      const cancelFrame = vi.fn();

      beforeEach(() => {
        Object.assign(HTMLVideoElement.prototype, {
          requestVideoFrameCallback: requestFrame,
          cancelVideoFrameCallback: cancelFrame,
        });
      });

      afterEach(() => {
        const prototype = HTMLVideoElement.prototype as Partial<HTMLVideoElement>;
        delete prototype.requestVideoFrameCallback;
        delete prototype.cancelVideoFrameCallback;
        requestFrame.mockClear();
        cancelFrame.mockClear();
      });

      it("watches the video frame by frame only while 'Live stats' is open", async () => {
        const { user } = await openPlayer();
        act(() => {
          sdk.lastStage.connect();
          sdk.lastStage.addVideoStream(fakeTrack('video'));
        });
        expect(requestFrame).not.toHaveBeenCalled();
        await user.keyboard('i');
        expect(requestFrame).toHaveBeenCalledTimes(1);
        await user.keyboard('i');
        expect(cancelFrame).toHaveBeenCalledTimes(1);
      });
    });

    it('takes no shortcut while focus is in a text field, or with Ctrl held', async () => {
      const { user } = await openPlayer();
      act(() => sdk.lastStage.connect());
      const field = document.createElement('input');
      document.body.append(field);
      try {
        await user.click(field);
        await user.keyboard('i?');
        expect(field).toHaveValue('i?');
        await user.click(video());
        await user.keyboard('{Control>}i{/Control}');
        expect(screen.queryByRole('region', { name: statsText.title })).not.toBeInTheDocument();
        expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      } finally {
        field.remove();
      }
    });

    it("opens 'Keyboard shortcuts' with ? or its button, lists the keys, and closes back to where focus was", async () => {
      const { user } = await openPlayer();
      act(() => sdk.lastStage.connect());
      const helpButton = screen.getByRole('button', { name: uiText.player.helpButton });
      await user.click(helpButton);
      // The dialog is a chunk of its own, loaded when first opened (a poll, not a sleep).
      const dialog = await screen.findByRole('dialog', { name: shortcutsText.title });
      for (const text of ['Fullscreen', 'Picture-in-picture', 'Live stats', 'This help']) {
        expect(dialog).toHaveTextContent(text);
      }
      await user.keyboard('i'); // nothing behind the help changes while it is open
      expect(screen.queryByRole('region', { name: statsText.title })).not.toBeInTheDocument();
      await user.click(screen.getByRole('button', { name: shortcutsText.close }));
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      expect(helpButton).toHaveFocus();

      await user.keyboard('?');
      expect(screen.getByRole('dialog', { name: shortcutsText.title })).toBeInTheDocument();
      await user.keyboard('?');
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });

    it('says so when the browser has no fullscreen or picture-in-picture', async () => {
      const { user } = await openPlayer();
      act(() => sdk.lastStage.connect());
      await user.keyboard('f');
      expect(await screen.findByText(uiText.shortcuts.fullscreenUnavailable)).toBeInTheDocument();
      await user.keyboard('p');
      expect(
        await screen.findByText(uiText.shortcuts.pictureInPictureUnavailable),
      ).toBeInTheDocument();
    });
  });
});
