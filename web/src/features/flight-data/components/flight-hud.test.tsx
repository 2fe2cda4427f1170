import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveFlightData } from '../lib/live-flight-data';
import { RecordedFlightData } from '../lib/recorded-flight-data';
import { flightSample } from '../testing/flight-samples';
import { FlightHud } from './flight-hud';

let store: LiveFlightData;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_795_000_000_000 });
  store = new LiveFlightData();
});

afterEach(() => {
  store.dispose();
  vi.useRealTimers();
});

const push = (...samples: Parameters<LiveFlightData['push']>[0][]) =>
  act(() => {
    for (const sample of samples) store.push(sample);
  });
const wait = (ms: number) => act(() => vi.advanceTimersByTime(ms));
const hud = () => screen.queryByTestId('flight-hud');

describe('FlightHud on the live picture', () => {
  it('draws nothing, and never "0 ft", while no sample has come', () => {
    const { container } = render(<FlightHud mode="live" store={store} />);
    wait(30_000);
    expect(container).toBeEmptyDOMElement();
    expect(screen.queryByText(/ft/)).toBeNull();
  });

  it('shows altitude, ground speed, heading and signed vertical speed, hidden from screen readers', () => {
    render(<FlightHud mode="live" store={store} />);
    push(
      flightSample({
        altitudeFt: 12_500,
        groundSpeedKt: 142,
        headingDeg: 87,
        verticalSpeedFpm: 1_200,
      }),
    );
    expect(hud()).toHaveAttribute('aria-hidden', 'true');
    expect(hud()).toHaveTextContent('ALT12,500 ft');
    expect(hud()).toHaveTextContent('GS142 kt');
    expect(hud()).toHaveTextContent('HDG087°');
    expect(hud()).toHaveTextContent('V/S+1,200 ft/min');
    expect(hud()?.querySelector('[data-trend="climbing"]')).not.toBeNull();
    expect(hud()).toHaveTextContent('Climb');

    push(flightSample({ capturedAtMs: Date.now() + 1, verticalSpeedFpm: -800, phase: 'descent' }));
    expect(hud()).toHaveTextContent('V/S\u2212800 ft/min');
    expect(hud()?.querySelector('[data-trend="descending"]')).not.toBeNull();
  });

  it('shows the figures’ age once they are past 2.5 s, and hides them after 10 s', () => {
    render(<FlightHud mode="live" store={store} />);
    push(flightSample({ altitudeFt: 3_000 }));
    wait(2_400);
    expect(hud()).toHaveAttribute('data-status', 'fresh');
    expect(hud()).not.toHaveTextContent('old');

    wait(2_600); // 5 s
    expect(hud()).toHaveAttribute('data-status', 'stale');
    expect(hud()).toHaveTextContent('5 s old');
    expect(hud()).toHaveTextContent('3,000 ft');

    wait(5_001); // just over 10 s
    expect(hud()).toBeNull();
    expect(screen.queryByText('3,000 ft')).toBeNull();
  });

  it('draws the track of the positions so far, the aircraft on its heading at the last one', () => {
    render(<FlightHud mode="live" store={store} />);
    for (let second = 0; second < 5; second += 1) {
      push(flightSample({ capturedAtMs: second, latitude: 47 + second * 0.01, headingDeg: 10 }));
      wait(1_000);
    }
    const polyline = screen.getByTestId('flight-track').querySelector('polyline');
    expect(polyline?.getAttribute('points')?.split(' ')).toHaveLength(5);
    const [lastX, lastY] = (polyline?.getAttribute('points')?.split(' ').at(-1) ?? '').split(',');
    expect(screen.getByTestId('flight-track-aircraft')).toHaveAttribute(
      'transform',
      `translate(${lastX} ${lastY}) rotate(10)`,
    );
  });

  it('announces a change of flight phase once, and not a change of figures', () => {
    const onAnnounce = vi.fn();
    render(<FlightHud mode="live" store={store} onAnnounce={onAnnounce} />);
    push(flightSample({ capturedAtMs: 1, phase: 'takeoff', altitudeFt: 50 }));
    push(flightSample({ capturedAtMs: 2, phase: 'takeoff', altitudeFt: 400 }));
    expect(onAnnounce).not.toHaveBeenCalled();

    push(flightSample({ capturedAtMs: 3, phase: 'climb', altitudeFt: 900 }));
    push(flightSample({ capturedAtMs: 4, phase: 'climb', altitudeFt: 1_500 }));
    push(flightSample({ capturedAtMs: 5, phase: 'climb', groundSpeedKt: 160 }));
    expect(onAnnounce).toHaveBeenCalledTimes(1);
    expect(onAnnounce).toHaveBeenCalledWith('Flight phase: Climb');
  });

  it('shows altitude and speed only on a Watch all tile', () => {
    render(<FlightHud mode="live" store={store} variant="tile" />);
    push(flightSample({ altitudeFt: 12_500, groundSpeedKt: 142 }));
    expect(hud()).toHaveTextContent(/^12,500 ft142 kt$/);
    expect(screen.queryByTestId('flight-track')).toBeNull();
    wait(5_000);
    expect(hud()).toHaveTextContent('5 s old');
    wait(6_000);
    expect(hud()).toBeNull();
  });
});

describe('FlightHud on a recording', () => {
  /** A video whose time the test sets, in a browser without requestVideoFrameCallback. */
  function fakeVideo(): { video: HTMLVideoElement; seek: (seconds: number) => void } {
    const video = document.createElement('video');
    let currentTime = 0;
    Object.defineProperty(video, 'currentTime', { get: () => currentTime });
    return {
      video,
      seek: (seconds) =>
        act(() => {
          currentTime = seconds;
          video.dispatchEvent(new Event('seeked'));
        }),
    };
  }

  it('shows the figures of the instant shown, not of now', () => {
    const recorded = new RecordedFlightData();
    for (let second = 0; second < 60; second += 1) {
      recorded.add(
        flightSample({ capturedAtMs: second, altitudeFt: 1_000 + second * 10 }),
        second * 1_000,
      );
    }
    const { video, seek } = fakeVideo();
    render(<FlightHud mode="playback" store={recorded} video={video} />);
    expect(hud()).toHaveTextContent('1,000 ft');

    seek(30.4);
    expect(hud()).toHaveTextContent('1,300 ft');
    wait(60_000); // the clock goes on; the picture, paused, does not
    expect(hud()).toHaveAttribute('data-status', 'fresh');
    seek(12.9);
    expect(hud()).toHaveTextContent('1,120 ft');
    seek(64);
    expect(hud()).toHaveTextContent('5 s old');
    seek(70);
    expect(hud()).toBeNull();
  });

  it('follows the frames the video presents, where the browser says which', () => {
    const recorded = new RecordedFlightData();
    recorded.add(flightSample({ capturedAtMs: 1, altitudeFt: 2_000 }), 1_000);
    recorded.add(flightSample({ capturedAtMs: 2, altitudeFt: 2_100 }), 2_000);
    const video = document.createElement('video');
    let onFrame: VideoFrameRequestCallback | undefined;
    const cancel = vi.fn();
    Object.assign(video, {
      requestVideoFrameCallback: (callback: VideoFrameRequestCallback) => {
        onFrame = callback;
        return 7;
      },
      cancelVideoFrameCallback: cancel,
    });
    const present = (mediaTime: number) =>
      act(() => onFrame?.(0, { mediaTime } as VideoFrameCallbackMetadata));
    const { unmount } = render(<FlightHud mode="playback" store={recorded} video={video} />);
    expect(hud()).toBeNull(); // currentTime 0: before the first sample

    present(1.5);
    expect(hud()).toHaveTextContent('2,000 ft');
    present(2.02);
    expect(hud()).toHaveTextContent('2,100 ft');
    unmount();
    expect(cancel).toHaveBeenCalledWith(7);
  });
});
