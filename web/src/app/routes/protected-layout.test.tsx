import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { fillText, uiText } from '@/config/ui-text';
import { renderApp } from '@/testing/render-app';
import { ProtectedLayout } from './protected-layout';

describe('route guard and header', () => {
  it.each(['/home', '/player/N743AS'])(
    'sends a visitor without a stored token from %s to /',
    (path) => {
      renderApp(path);
      expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
      expect(screen.getByRole('heading', { name: uiText.signIn.title })).toBeInTheDocument();
    },
  );

  it('checks only that a token is stored, not whether it is valid', () => {
    localStorage.setItem('token', 'not-even-a-jwt');
    renderApp('/home');
    expect(screen.getByRole('heading', { name: uiText.home.title })).toBeInTheDocument();
  });

  it.each(['/player', '/player/'])('sends %s without a stream id to /home', (path) => {
    localStorage.setItem('token', 't');
    renderApp(path);
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
  });

  it('takes the viewer home from the header logo', async () => {
    localStorage.setItem('token', 't');
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise(() => undefined)),
    );
    const { user } = renderApp('/player/N743AS');
    await user.click(screen.getByRole('link', { name: uiText.header.homeLink }));
    expect(screen.getByTestId('location')).toHaveTextContent('/home');
  });

  it("logs out with 'Logout': removes the stored token and goes to /", async () => {
    localStorage.setItem('token', 't');
    const { user } = renderApp('/home');
    const logout = screen.getByRole('button', { name: uiText.header.logout });
    // On small screens only the icon shows; the button keeps its accessible name.
    expect(logout.querySelector('svg')).toBeInTheDocument();
    expect(logout).toHaveTextContent(uiText.header.logout);
    expect(screen.getByText(uiText.header.logout)).toHaveClass('hidden', 'sm:inline');
    await user.click(logout);
    expect(localStorage.getItem('token')).toBeNull();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
  });

  it("shows 'Loading page...' under the header while a page that loads when first opened loads", () => {
    localStorage.setItem('token', 't');
    const NeverLoaded = lazy(() => new Promise<never>(() => undefined));
    render(
      <MemoryRouter initialEntries={['/later']}>
        <Routes>
          <Route element={<ProtectedLayout />}>
            <Route path="/later" element={<NeverLoaded />} />
          </Route>
        </Routes>
      </MemoryRouter>,
    );
    expect(screen.getByRole('button', { name: uiText.header.logout })).toBeInTheDocument();
    expect(screen.getByRole('main')).toContainElement(screen.getByRole('status'));
    expect(screen.getByRole('status')).toHaveTextContent(uiText.pages.loading);
  });

  it("says 'This page could not be loaded.' with 'Reload' when a page cannot be fetched, and opens the next page as usual", async () => {
    localStorage.setItem('token', 't');
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // React reports the error
    const Unreachable = lazy(() =>
      Promise.reject(new TypeError('Failed to fetch dynamically imported module')),
    );
    const user = userEvent.setup();
    render(
      <MemoryRouter initialEntries={['/later']}>
        <Routes>
          <Route element={<ProtectedLayout />}>
            <Route path="/later" element={<Unreachable />} />
            <Route path="/home" element={<p>The home page</p>} />
          </Route>
        </Routes>
      </MemoryRouter>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(uiText.pages.loadFailed);
    expect(within(alert).getByRole('button', { name: uiText.pages.reload })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: uiText.header.logout })).toBeInTheDocument();

    await user.click(screen.getByRole('link', { name: uiText.header.homeLink }));
    expect(await screen.findByText('The home page')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows no header on the sign-in page', () => {
    renderApp('/');
    expect(screen.queryByRole('button', { name: uiText.header.logout })).not.toBeInTheDocument();
  });
});

describe('after a navigation', () => {
  it('moves focus to the main content and names the page after it', async () => {
    localStorage.setItem('token', 't');
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise(() => undefined)),
    );
    const { user } = renderApp('/home');
    expect(document.title).toBe(uiText.home.documentTitle);
    expect(screen.getByRole('main')).not.toHaveFocus();

    await user.click(screen.getByRole('link', { name: /N954AS/ }));
    expect(screen.getByRole('main')).toHaveFocus();
    expect(document.title).toBe(fillText(uiText.player.documentTitle, { streamId: 'N954AS' }));
  });
});
