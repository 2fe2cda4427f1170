import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { uiText } from '@/config/ui-text';
import { LoadingOverlay, SPINNER_DELAY_MS } from './player-overlays';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(() => {
  vi.useRealTimers();
});

it("says 'Connecting to stream...' at once, and shows its spinner only once the wait is long", () => {
  const { container } = render(<LoadingOverlay />);
  expect(screen.getByRole('status')).toHaveTextContent(uiText.player.connecting);
  const spinner = container.querySelector('svg');
  expect(spinner).toHaveClass('invisible');
  expect(spinner).not.toHaveClass('animate-spin');
  act(() => vi.advanceTimersByTime(SPINNER_DELAY_MS - 1));
  expect(spinner).toHaveClass('invisible');
  act(() => vi.advanceTimersByTime(1));
  expect(spinner).not.toHaveClass('invisible');
  expect(spinner).toHaveClass('animate-spin');
});
