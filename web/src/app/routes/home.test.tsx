import { act, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { fillText, uiText } from '@/config/ui-text';
import { StreamGrid } from '@/features/streams/components/stream-grid';
import { FakeStageSdk, fakeTrack } from '@/testing/fake-stage-sdk';
import { FakeMediaStream, stubMedia } from '@/testing/media-stubs';
import { callsBesideThumbnails, isThumbnailRequest } from '@/testing/api-calls';
import { renderApp } from '@/testing/render-app';
import { STANDBY_AFTER_MS } from './home';

/** Every fetch answers a participant token for the stream it names, as `POST /api/token` does. */
function stubParticipantTokenFetch(onFetch?: () => void) {
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
      if (!isThumbnailRequest(input)) onFetch?.();
      const { stageId } = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as {
        stageId?: string;
      };
      return Promise.resolve(
        new Response(JSON.stringify({ token: `token-${stageId}` }), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      );
    }),
  );
}

/** /home signed in, with the fake stage SDK installed and every token request answered. */
function renderHomeWithStageSdk(onFetch?: () => void) {
  localStorage.setItem('token', 't');
  const sdk = new FakeStageSdk();
  sdk.install();
  stubMedia();
  stubParticipantTokenFetch(onFetch);
  return { sdk, ...renderApp('/home') };
}

describe('stream selection page', () => {
  it("shows 'Available Streams', its subtitle and one card per built-in stream, none live", () => {
    localStorage.setItem('token', 't');
    renderApp('/home');
    expect(screen.getByRole('heading', { name: uiText.home.title })).toBeInTheDocument();
    expect(screen.getByText(uiText.home.subtitle)).toBeInTheDocument();

    const cards = within(screen.getByRole('list', { name: uiText.home.streamList })).getAllByRole(
      'link',
    );
    expect(cards.map((card) => within(card).getByRole('heading').textContent)).toEqual([
      'N743AS',
      'N953AS',
      'N954AS',
    ]);
    for (const card of cards) {
      expect(within(card).getByText(uiText.home.cardHint)).toBeInTheDocument();
      expect(within(card).getByRole('img')).toBeInTheDocument();
      expect(within(card).queryByText(uiText.home.liveBadge)).not.toBeInTheDocument();
    }
  });

  it('lays the grid out in 1, 2 and 3 columns at small, medium and large widths', () => {
    localStorage.setItem('token', 't');
    renderApp('/home');
    expect(screen.getByRole('list', { name: uiText.home.streamList })).toHaveClass(
      'grid-cols-1',
      'md:grid-cols-2',
      'lg:grid-cols-3',
    );
  });

  it('opens the player of the clicked stream', async () => {
    localStorage.setItem('token', 't');
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise(() => undefined)),
    );
    const { user } = renderApp('/home');
    await user.click(screen.getByRole('link', { name: /N953AS/ }));
    expect(screen.getByTestId('location')).toHaveTextContent('/player/N953AS');
  });

  it.each([['{Enter}'], [' ']])('opens the player from the keyboard with %s', async (key) => {
    localStorage.setItem('token', 't');
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise(() => undefined)),
    );
    const { user } = renderApp('/home');
    await user.tab(); // header logo
    await user.tab(); // 'Operations'
    await user.tab(); // logout
    await user.tab(); // 'Recordings'
    await user.tab(); // 'Watch all'
    await user.tab(); // first card
    expect(screen.getByRole('link', { name: /N743AS/ })).toHaveFocus();
    await user.keyboard(key);
    expect(screen.getByTestId('location')).toHaveTextContent('/player/N743AS');
  });

  it("shows a 'Live' badge and the thumbnail image for a live stream that has one", () => {
    render(
      <MemoryRouter>
        <StreamGrid
          streams={[{ id: 'N1', name: 'N1', isLive: true, thumbnailUrl: '/thumb.jpg' }]}
          hrefFor={(id) => `/player/${id}`}
          onOpen={() => undefined}
        />
      </MemoryRouter>,
    );
    expect(screen.getByText(uiText.home.liveBadge)).toBeInTheDocument();
    expect(
      screen.getByRole('img', { name: fillText(uiText.home.thumbnail, { name: 'N1' }) }),
    ).toHaveAttribute('src', '/thumb.jpg');
  });

  it("shows 'No streams available' and 'Check back later for available streams' when the list is empty", () => {
    render(
      <MemoryRouter>
        <StreamGrid streams={[]} hrefFor={(id) => id} onOpen={() => undefined} />
      </MemoryRouter>,
    );
    expect(screen.getByText(uiText.home.emptyTitle)).toBeInTheDocument();
    expect(screen.getByText(uiText.home.emptyHint)).toBeInTheDocument();
    expect(screen.queryByRole('list')).not.toBeInTheDocument();
  });
});

/**
 * The streams whose joins are open and ask for their video (an intent's, a click's, a player's),
 * beside the joins on standby that the page's first sign of life opened (decision 0112).
 */
const watching = (sdk: FakeStageSdk) =>
  sdk.stages
    .filter((stage) => stage.leaveCalls === 0 && stage.subscribesTo() !== 'none')
    .map((stage) => stage.token.replace('token-', ''));

/** The participant tokens asked for one stream. */
const tokensFor = (streamId: string) =>
  callsBesideThumbnails(vi.mocked(fetch)).filter(
    ([, init]) =>
      typeof (init as RequestInit | undefined)?.body === 'string' &&
      (init as RequestInit).body?.toString().includes(`"stageId":"${streamId}"`),
  ).length;

/** The joins of one stream, each as [joins, leaves]. */
const joinsOf = (sdk: FakeStageSdk, streamId: string) =>
  sdk.stages
    .filter((stage) => stage.token === `token-${streamId}`)
    .map((stage) => [stage.joinCalls, stage.leaveCalls]);

/** The streams whose joins are still open, on standby or not. */
const open = (sdk: FakeStageSdk) =>
  sdk.stages
    .filter((stage) => stage.leaveCalls === 0)
    .map((stage) => stage.token.replace('token-', ''));

describe('opening a stream from the grid', () => {
  it("joins every stream on standby at the page's first sign of life, and asks for no video", async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    expect(sdk.stages).toHaveLength(0);
    await user.pointer({ coords: { x: 5, y: 5 }, target: document.body });
    await waitFor(() => expect(open(sdk)).toEqual(['N743AS', 'N953AS', 'N954AS']));
    expect(sdk.stages.map((stage) => stage.configuration.standby)).toEqual([true, true, true]);
    expect(watching(sdk)).toEqual([]);
    // The next signs of life join nothing more while they wait.
    await user.keyboard('{Shift}');
    await user.pointer({ coords: { x: 50, y: 50 }, target: document.body });
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(sdk.stages).toHaveLength(3);
    delete window.IVSBroadcastClient;
  });

  it('joins nothing on standby with an SDK that cannot hold a video (the real one)', async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    sdk.withoutStandby();
    await user.pointer({ coords: { x: 5, y: 5 }, target: document.body });
    await user.keyboard('{Shift}');
    await act(() => new Promise((resolve) => setTimeout(resolve, STANDBY_AFTER_MS + 50)));
    expect(sdk.stages).toHaveLength(0);
    delete window.IVSBroadcastClient;
  });

  it('joins while the mouse rests on a card, and the player takes that join at the click', async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    const card = screen.getByRole('link', { name: /N953AS/ });

    await user.hover(card);
    await waitFor(() => expect(watching(sdk)).toEqual(['N953AS']));
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
    await user.click(card);

    await screen.findByLabelText(fillText(uiText.player.video, { streamId: 'N953AS' }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    // The player took the rest's join (one join of the stream in all); the others left with /home.
    expect(joinsOf(sdk, 'N953AS')).toEqual([[1, 0]]);
    expect(open(sdk)).toEqual(['N953AS']);
    // One token for the stream: the rest's (the click asked for none).
    expect(tokensFor('N953AS')).toBe(1);
    delete window.IVSBroadcastClient;
  });

  it('leaves the join when the pointer leaves the card, and joins only the card it rests on', async () => {
    const { sdk, user } = renderHomeWithStageSdk();

    await user.hover(screen.getByRole('link', { name: /N743AS/ }));
    await waitFor(() => expect(watching(sdk)).toEqual(['N743AS']));
    await user.hover(screen.getByRole('link', { name: /N954AS/ }));
    await waitFor(() => expect(watching(sdk)).toEqual(['N954AS']));
    expect(joinsOf(sdk, 'N743AS')[0]).toEqual([1, 1]);
    await user.unhover(screen.getByRole('link', { name: /N954AS/ }));
    expect(watching(sdk)).toEqual([]);
    expect(joinsOf(sdk, 'N954AS')[0]).toEqual([1, 1]);
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
    delete window.IVSBroadcastClient;
  });

  it("joins the card the keyboard's focus is on, leaves it when the focus moves on, and Enter plays that join", async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    // The logo, 'Operations', 'Log out', 'Recordings', 'Watch all', the first card.
    for (let tab = 0; tab < 6; tab += 1) await user.tab();
    // 'Watch all' showed the three streams, its blur left them, and the card shows its own.
    await waitFor(() => expect(watching(sdk)).toEqual(['N743AS']));
    await user.tab(); // the second card
    await waitFor(() => expect(watching(sdk)).toEqual(['N953AS']));
    const focused = sdk.stages.find(
      (stage) => stage.leaveCalls === 0 && stage.subscribesTo() !== 'none',
    );
    await user.keyboard('{Enter}');
    expect(screen.getByTestId('location')).toHaveTextContent('/player/N953AS');
    await screen.findByLabelText(fillText(uiText.player.video, { streamId: 'N953AS' }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    // Enter played the focus's join: still open, the only one.
    expect(focused?.leaveCalls).toBe(0);
    expect(open(sdk)).toEqual(['N953AS']);
    delete window.IVSBroadcastClient;
  });

  it('starts joining with the click, and the player shows that one join’s video', async () => {
    const { sdk, user } = renderHomeWithStageSdk();

    await user.click(screen.getByRole('link', { name: /N954AS/ }));
    await waitFor(() => expect(joinsOf(sdk, 'N954AS')).toEqual([[1, 0]]));
    const stage = sdk.stages.find((each) => each.token === 'token-N954AS')!;
    const track = fakeTrack('video');
    act(() => {
      stage.connect();
      stage.addVideoStream(track);
    });
    const video = await screen.findByLabelText(
      fillText(uiText.player.video, { streamId: 'N954AS' }),
    );
    await waitFor(() =>
      expect((video as HTMLVideoElement).srcObject).toBeInstanceOf(FakeMediaStream),
    );
    expect(((video as HTMLVideoElement).srcObject as unknown as FakeMediaStream).tracks).toEqual([
      track,
    ]);
    // The player took the click's session: one join of the stream in all, asking for its video;
    // the click was the page's first sign of life, and the page went before any join on standby.
    await act(() => new Promise((resolve) => setTimeout(resolve, STANDBY_AFTER_MS + 50)));
    expect(joinsOf(sdk, 'N954AS')).toEqual([[1, 0]]);
    expect(watching(sdk)).toEqual(['N954AS']);
    expect(sdk.stages).toHaveLength(1);
    delete window.IVSBroadcastClient;
  });

  it('starts no join for a click that opens the stream in another tab', async () => {
    localStorage.setItem('token', 't');
    const sdk = new FakeStageSdk();
    sdk.install();
    // A token would be at hand: only the card's own rule keeps the join from starting.
    stubParticipantTokenFetch();
    const { user } = renderApp('/home');
    await user.keyboard('{Control>}');
    await user.click(screen.getByRole('link', { name: /N743AS/ }));
    await user.keyboard('{/Control}');
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    // Only the joins on standby of the page's first sign of life: none asks for its video.
    expect(watching(sdk)).toEqual([]);
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
    delete window.IVSBroadcastClient;
  });

  it("starts every tile's join with the click on 'Watch all', and the tiles take those joins", async () => {
    localStorage.setItem('token', 't');
    const sdk = new FakeStageSdk();
    sdk.install();
    stubMedia();
    // Where the page was when each participant token was asked for: still /home means the
    // click asked, before the 'Watch all' route rendered its tiles.
    const askedFrom: (string | null | undefined)[] = [];
    stubParticipantTokenFetch(() => askedFrom.push(screen.queryByTestId('location')?.textContent));
    const { user } = renderApp('/home');

    await user.click(screen.getByRole('link', { name: uiText.home.watchAllLabel }));
    await waitFor(() => expect(sdk.stages).toHaveLength(3));
    // The page loads when first opened (docs/product.md#routes): /home stays until it is there.
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/watch-all'));
    for (const streamId of ['N743AS', 'N953AS', 'N954AS']) {
      expect(
        await screen.findByLabelText(fillText(uiText.player.video, { streamId })),
      ).toBeInTheDocument();
    }
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    // The tiles took the click's sessions: three joins in all, none left.
    expect(sdk.stages).toHaveLength(3);
    expect(sdk.stages.map((stage) => stage.joinCalls)).toEqual([1, 1, 1]);
    expect(sdk.stages.map((stage) => stage.leaveCalls)).toEqual([0, 0, 0]);
    expect(askedFrom).toEqual(['/home', '/home', '/home']);
    delete window.IVSBroadcastClient;
  });

  it("joins every stream while the mouse rests on 'Watch all', not on a pass-over, and leaves them when it leaves", async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    const watchAll = screen.getByRole('link', { name: uiText.home.watchAllLabel });

    await user.hover(watchAll);
    await user.unhover(watchAll);
    await act(() => new Promise((resolve) => setTimeout(resolve, 100)));
    expect(watching(sdk)).toEqual([]);

    await user.hover(watchAll);
    await waitFor(() => expect(watching(sdk)).toEqual(['N743AS', 'N953AS', 'N954AS']));
    const rested = sdk.stages.filter(
      (stage) => stage.leaveCalls === 0 && stage.subscribesTo() !== 'none',
    );
    await user.unhover(watchAll);
    expect(watching(sdk)).toEqual([]);
    expect(rested.map((stage) => stage.leaveCalls)).toEqual([1, 1, 1]);
    delete window.IVSBroadcastClient;
  });

  it("has the tiles take the joins the mouse's rest on 'Watch all' started", async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    const watchAll = screen.getByRole('link', { name: uiText.home.watchAllLabel });

    await user.hover(watchAll);
    await waitFor(() => expect(sdk.stages).toHaveLength(3));
    await user.click(watchAll);
    for (const streamId of ['N743AS', 'N953AS', 'N954AS']) {
      await screen.findByLabelText(fillText(uiText.player.video, { streamId }));
    }
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(sdk.stages.map((stage) => [stage.joinCalls, stage.leaveCalls])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
    ]);
    expect(callsBesideThumbnails(vi.mocked(fetch))).toHaveLength(3);
    delete window.IVSBroadcastClient;
  });

  it("starts the join on a mouse's press, and the player takes it on the release", async () => {
    const { sdk, user } = renderHomeWithStageSdk();
    const card = screen.getByRole('link', { name: /N953AS/ });

    await user.pointer({ keys: '[MouseLeft>]', target: card });
    await waitFor(() => expect(joinsOf(sdk, 'N953AS')).toEqual([[1, 0]]));
    expect(screen.getByTestId('location')).toHaveTextContent('/home');

    await user.pointer({ keys: '[/MouseLeft]', target: card });
    expect(screen.getByTestId('location')).toHaveTextContent('/player/N953AS');
    await screen.findByLabelText(fillText(uiText.player.video, { streamId: 'N953AS' }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    // The player took the press's session; one token: the focus after the press fetched none.
    expect(joinsOf(sdk, 'N953AS')).toEqual([[1, 0]]);
    expect(watching(sdk)).toEqual(['N953AS']);
    expect(tokensFor('N953AS')).toBe(1);
    delete window.IVSBroadcastClient;
  });

  it('starts no join on a touch press, which may be the start of a scroll', async () => {
    localStorage.setItem('token', 't');
    const sdk = new FakeStageSdk();
    sdk.install();
    stubParticipantTokenFetch();
    const { user } = renderApp('/home');
    await user.pointer({ keys: '[TouchA>]', target: screen.getByRole('link', { name: /N743AS/ }) });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(watching(sdk)).toEqual([]);
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
    delete window.IVSBroadcastClient;
  });
});
