import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { fillText, uiText } from '@/config/ui-text';
import { renderApp } from '@/testing/render-app';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('live thumbnails on /home', () => {
  it("shows each aircraft's own picture, fetched with the login token, and the placeholder where there is none", async () => {
    localStorage.setItem('token', 'login-token');
    const fetchSpy = vi.fn((input: RequestInfo | URL) =>
      Promise.resolve(
        String(input).endsWith('/api/thumbnails/N953AS')
          ? new Response(Uint8Array.of(0xff, 0xd8), { headers: { 'content-type': 'image/jpeg' } })
          : new Response(null, { status: 204 }),
      ),
    );
    vi.stubGlobal('fetch', fetchSpy);
    const created: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      created.push(blob as Blob);
      return `blob:http://localhost/${created.length}`;
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    renderApp('/home');

    const picture = await screen.findByRole('img', {
      name: fillText(uiText.home.thumbnail, { name: 'N953AS' }),
    });
    expect(picture).toHaveAttribute('src', 'blob:http://localhost/1');
    expect(created[0]?.type).toBe('image/jpeg');
    for (const name of ['N743AS', 'N954AS']) {
      expect(
        screen.getByRole('img', { name: fillText(uiText.home.placeholderImage, { name }) }),
      ).toBeInTheDocument();
    }
    await waitFor(() => expect(fetchSpy).toHaveBeenCalledTimes(3));
    for (const [, init] of fetchSpy.mock.calls as unknown as [string, RequestInit][]) {
      expect(new Headers(init.headers).get('authorization')).toBe('Bearer login-token');
    }
  });

  it('stops asking once the API refuses the login token', async () => {
    localStorage.setItem('token', 'expired');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchSpy = vi.fn(() => Promise.resolve(new Response(null, { status: 401 })));
    vi.stubGlobal('fetch', fetchSpy);
    renderApp('/home');
    await waitFor(() => expect(fetchSpy).toHaveBeenCalledTimes(3));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(fetchSpy).toHaveBeenCalledTimes(3);
    vi.useRealTimers();
  });
});
