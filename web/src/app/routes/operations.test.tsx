/**
 * The operator's page (docs/product.md#operations): the table, the live update through the long
 * poll and what it announces, and the loading, failure and retry states.
 */
import { act, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { operationsText } from '@/config/ui-text-operations';
import type { OperationsSnapshot } from '@/features/operations/api/operations';
import { OperationsRoute } from './operations';

const SINCE = '2026-11-29T15:00:00.000Z';

function snapshot(version: number, n743asOnAir: boolean): OperationsSnapshot {
  return {
    version,
    aircraft: [
      {
        aircraft: 'N743AS',
        onAir: n743asOnAir,
        since: SINCE,
        bitrate: n743asOnAir ? 1_250_000 : null,
        viewers: 2,
      },
      { aircraft: 'N953AS', onAir: false, since: null, bitrate: null, viewers: 0 },
    ],
    events: n743asOnAir ? [] : [{ id: 'e1', time: SINCE, aircraft: 'N743AS', name: 'Off Air' }],
  };
}

/** Every request the page makes, answered by the test. */
let requests: { url: string; answer: (response: Response) => void }[] = [];

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  requests = [];
  vi.useFakeTimers({ shouldAdvanceTime: true, now: Date.parse('2026-11-29T15:03:10Z') });
  vi.stubGlobal(
    'fetch',
    vi.fn(
      (input: RequestInfo | URL) =>
        new Promise<Response>((answer) => requests.push({ url: String(input), answer })),
    ),
  );
  localStorage.setItem('token', 't');
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function renderPage() {
  return render(
    <MemoryRouter>
      <OperationsRoute />
    </MemoryRouter>,
  );
}

async function answer(index: number, response: Response) {
  await act(async () => {
    requests[index]!.answer(response);
    await vi.advanceTimersByTimeAsync(0);
  });
}

describe('the Operations page', () => {
  it('shows each aircraft in a table with headers, its state in words, since when and for how long', async () => {
    renderPage();
    expect(screen.getByRole('status')).toHaveTextContent(operationsText.loading);
    await answer(0, json(snapshot(1, true)));
    const table = screen.getByRole('table', { name: operationsText.aircraftCaption });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((header) => header.textContent);
    expect(headers).toEqual(['Aircraft', 'State', 'Since', 'Bitrate', 'Viewers']);
    const n743as = within(table).getByRole('row', { name: /N743AS/ });
    expect(n743as).toHaveTextContent('On air');
    expect(n743as).toHaveTextContent('for 3 min');
    expect(n743as).toHaveTextContent('1.3 Mbit/s');
    const n953as = within(table).getByRole('row', { name: /N953AS/ });
    expect(n953as).toHaveTextContent('Off air');
    expect(n953as).toHaveTextContent(operationsText.unknownSince);
    expect(screen.getByText(operationsText.noEvents)).toBeInTheDocument();
    // The first load is not announced.
    expect(document.querySelector('[aria-live="polite"]')).toHaveTextContent('');
  });

  it('updates through the long poll and announces an aircraft going off air, and only that', async () => {
    renderPage();
    await answer(0, json(snapshot(1, true)));
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(requests[1]!.url).toMatch(/\/api\/operations\?after=1$/);
    await answer(1, json(snapshot(2, false)));
    const row = screen.getByRole('row', { name: /N743AS/ });
    expect(row).toHaveTextContent('Off air');
    expect(document.querySelector('[aria-live="polite"]')).toHaveTextContent('N743AS is off air');
    expect(screen.getByRole('listitem')).toHaveTextContent('N743AS');
    expect(screen.getByRole('listitem')).toHaveTextContent('Off Air');
  });

  it('says the list could not be loaded, with a button that tries again at once', async () => {
    renderPage();
    await answer(0, json({ error: 'Internal server error' }, 500));
    expect(screen.getByRole('alert')).toHaveTextContent(operationsText.loadFailed);
    act(() => screen.getByRole('button', { name: operationsText.retry }).click());
    expect(requests).toHaveLength(2);
    await answer(1, json(snapshot(1, true)));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('table')).toBeInTheDocument();
  });

  it('keeps the table when an update fails, and says it is not up to date', async () => {
    renderPage();
    await answer(0, json(snapshot(1, true)));
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await act(async () => {
      requests[1]!.answer(Promise.reject(new TypeError('Failed to fetch')) as never);
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(screen.getByRole('table')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(operationsText.retrying);
  });

  it('stops asking after a 401 and says to sign in again', async () => {
    renderPage();
    await answer(0, json({ error: 'Invalid or expired token' }, 401));
    expect(screen.getByRole('alert')).toHaveTextContent(operationsText.signedOut);
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(requests).toHaveLength(1);
  });
});
