/**
 * When the player shows what the app lays beside the live picture (the rewind, decision 0088):
 * after the first picture, or once it is clear there is none, so that the join does not wait for
 * it (decision 0093); and it stays while the stream changes publisher.
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, expect, it, vi } from 'vitest';
import { FakeStageSdk, fakeTrack } from '@/testing/fake-stage-sdk';
import { signedInWithFakeStage, stubMedia } from '@/testing/media-stubs';
import { StreamPlayer, type RewindSlot } from './stream-player';

let sdk: FakeStageSdk;

beforeEach(() => {
  sdk = new FakeStageSdk();
  return signedInWithFakeStage(sdk);
});

function Rewind({ streamId }: RewindSlot) {
  return <p>rewind of {streamId}</p>;
}

async function openPlayer() {
  render(<StreamPlayer streamId="N743AS" Rewind={Rewind} />);
  await waitFor(() => expect(sdk.stages).toHaveLength(1));
}

/** A play() the test settles: the first frame is on screen when it does. */
function heldPlay() {
  let settle = () => undefined as void;
  const played = new Promise<void>((resolve) => (settle = resolve));
  stubMedia(() => played);
  return () => act(async () => settle());
}

it('shows the rewind once the first picture is on screen, not while the stream joins', async () => {
  const firstPicture = heldPlay();
  await openPlayer();
  act(() => {
    sdk.lastStage.connect();
    sdk.lastStage.addVideoStream(fakeTrack('video'));
  });
  expect(screen.queryByText('rewind of N743AS')).not.toBeInTheDocument();
  await firstPicture();
  expect(screen.getByText('rewind of N743AS')).toBeInTheDocument();
});

it('shows the rewind when the stream has no video to wait for', async () => {
  await openPlayer();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    act(() => sdk.lastStage.connect());
    expect(screen.queryByText('rewind of N743AS')).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(2_000)); // 'Waiting for video from N743AS'
    expect(screen.getByText('rewind of N743AS')).toBeInTheDocument();
  } finally {
    vi.useRealTimers();
  }
});

it("keeps the rewind while a new publisher's video starts", async () => {
  await openPlayer();
  act(() => {
    sdk.lastStage.connect();
    sdk.lastStage.addVideoStream(fakeTrack('video'));
  });
  expect(await screen.findByText('rewind of N743AS')).toBeInTheDocument();
  const nextPicture = heldPlay();
  act(() => sdk.lastStage.addVideoStream(fakeTrack('video'), 'next-publisher'));
  expect(screen.getByText('rewind of N743AS')).toBeInTheDocument();
  await nextPicture();
});
