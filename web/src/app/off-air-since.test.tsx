/**
 * Under the player's 'Waiting for video': since when the aircraft is off air
 * (docs/product.md#when-there-is-no-picture), from one request.
 */
import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OffAirSince } from './off-air-since';

const json = (body: unknown) =>
  new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });

function stubOperations(n743as: { onAir: boolean; since: string | null }) {
  const fetch = vi.fn((_input: RequestInfo | URL) =>
    Promise.resolve(
      json({
        version: 4,
        aircraft: [{ aircraft: 'N743AS', bitrate: null, viewers: 1, ...n743as }],
        events: [],
      }),
    ),
  );
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true, now: Date.parse('2026-11-29T15:03:10Z') });
  localStorage.setItem('token', 't');
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("the player's off-air time", () => {
  it('says since when the aircraft is off air, and for how long, from one request', async () => {
    const fetch = stubOperations({ onAir: false, since: '2026-11-29T15:00:00.000Z' });
    const { container } = render(<OffAirSince streamId="N743AS" />);
    const time = new Date('2026-11-29T15:00:00.000Z').toLocaleString(undefined, {
      hour: '2-digit',
      minute: '2-digit',
    });
    await waitFor(() => expect(container).toHaveTextContent(`Off air since ${time} (for 3 min)`));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(container).toHaveTextContent('(for 4 min)');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String(fetch.mock.calls[0]![0])).toMatch(/\/api\/operations$/);
  });

  it('adds nothing when the time is unknown, or the API says the aircraft is on air', async () => {
    for (const n743as of [
      { onAir: false, since: null },
      { onAir: true, since: '2026-11-29T15:00:00.000Z' },
    ]) {
      const fetch = stubOperations(n743as);
      const { container, unmount } = render(<OffAirSince streamId="N743AS" />);
      await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
      await vi.advanceTimersByTimeAsync(0);
      expect(container).toBeEmptyDOMElement();
      expect(screen.queryByText(/Off air since/)).not.toBeInTheDocument();
      unmount();
    }
  });
});
