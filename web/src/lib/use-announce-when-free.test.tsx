import { act, render, screen } from '@testing-library/react';
import { useEffect } from 'react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ANNOUNCEMENT_HOLD_MS, useAnnounceWhenFree } from './use-announce-when-free';
import { useAnnouncer } from './use-announcer';

interface Say {
  /** The viewer's own action's message. */
  announce: (text: string) => void;
  /** What the page says by itself. */
  whenFree: (text: string) => void;
}
let say: Say | undefined;

/** The player's polite region, as the player and its flight data keep it. */
function Region({ expose }: { expose: (say: Say) => void }) {
  const { announcement, announce, announcedAt } = useAnnouncer();
  const whenFree = useAnnounceWhenFree(announce, announcedAt);
  useEffect(() => {
    expose({ announce, whenFree });
  });
  return (
    <div aria-live="polite" data-testid="region">
      <span key={announcement.id}>{announcement.text}</span>
    </div>
  );
}

const region = () => screen.getByTestId('region');

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  vi.advanceTimersByTime(10_000);
  render(<Region expose={(given) => (say = given)} />);
});

afterEach(() => {
  vi.useRealTimers();
});

it("says the viewer's own messages at once, one after another", () => {
  act(() => say?.announce('Live stats shown'));
  expect(region()).toHaveTextContent('Live stats shown');
  act(() => say?.announce('Live stats hidden'));
  expect(region()).toHaveTextContent('Live stats hidden');
});

it("says what comes by itself once the viewer's message has stood a second, the newest only", () => {
  act(() => say?.announce('Quality: Auto'));
  act(() => vi.advanceTimersByTime(60));
  act(() => say?.whenFree('Flight phase: Takeoff'));
  act(() => say?.whenFree('Flight phase: Climb'));
  expect(region()).toHaveTextContent('Quality: Auto');
  act(() => vi.advanceTimersByTime(ANNOUNCEMENT_HOLD_MS - 61));
  expect(region()).toHaveTextContent('Quality: Auto');
  act(() => vi.advanceTimersByTime(1));
  expect(region()).toHaveTextContent('Flight phase: Climb');
  act(() => vi.advanceTimersByTime(ANNOUNCEMENT_HOLD_MS * 2));
  expect(region()).toHaveTextContent('Flight phase: Climb');
});

it('says what comes by itself at once when nothing was said for a second, and lets the viewer cut in', () => {
  act(() => say?.whenFree('Flight phase: Climb'));
  expect(region()).toHaveTextContent('Flight phase: Climb');
  act(() => say?.announce('Live stats shown'));
  act(() => vi.advanceTimersByTime(500));
  act(() => say?.whenFree('Flight phase: Cruise'));
  act(() => say?.announce('Live stats hidden'));
  expect(region()).toHaveTextContent('Live stats hidden');
  // Due 500 ms on, the waiting one looks again: the viewer's message has stood only 500 ms.
  act(() => vi.advanceTimersByTime(999));
  expect(region()).toHaveTextContent('Live stats hidden');
  act(() => vi.advanceTimersByTime(1));
  expect(region()).toHaveTextContent('Flight phase: Cruise');
});
