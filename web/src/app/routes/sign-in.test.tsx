import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '@/testing/render-app';

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

async function fillAndSubmit(user: ReturnType<typeof renderApp>['user']) {
  await user.type(screen.getByLabelText('Username'), 'pilot');
  await user.type(screen.getByLabelText('Password'), 'correct horse');
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
}

describe('sign-in page', () => {
  it("shows 'Welcome Back' with Username and Password fields and their placeholders, both required", () => {
    renderApp('/');
    expect(screen.getByRole('heading', { name: 'Welcome Back' })).toBeInTheDocument();
    const username = screen.getByLabelText('Username');
    const password = screen.getByLabelText('Password');
    expect(username).toHaveAttribute('placeholder', 'Enter your username');
    expect(password).toHaveAttribute('placeholder', 'Enter your password');
    expect(username).toBeRequired();
    expect(password).toBeRequired();
    expect(password).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it('does not send the form while a field is empty', async () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal('fetch', fetchSpy);
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText('Username'), 'pilot');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("reads 'Signing in...' and disables both inputs and the button while the request is pending", async () => {
    let answer: (response: Response) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>((resolve) => (answer = resolve))),
    );
    const { user } = renderApp('/');
    await fillAndSubmit(user);

    const button = screen.getByRole('button', { name: 'Signing in...' });
    expect(button).toBeDisabled();
    expect(screen.getByLabelText('Username')).toBeDisabled();
    expect(screen.getByLabelText('Password')).toBeDisabled();

    answer(jsonResponse(401, { error: 'Invalid credentials' }));
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it("posts the credentials as JSON, stores the token under 'token' and goes to /home", async () => {
    const fetchSpy = vi.fn(() => Promise.resolve(jsonResponse(200, { token: 'login-token-1' })));
    vi.stubGlobal('fetch', fetchSpy);
    const { user } = renderApp('/');
    await fillAndSubmit(user);

    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/home'));
    expect(localStorage.getItem('token')).toBe('login-token-1');
    expect(fetchSpy).toHaveBeenCalledWith(
      '/api/login',
      expect.objectContaining({
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'pilot', password: 'correct horse' }),
      }),
    );
    expect(screen.getByRole('heading', { name: 'Available Streams' })).toBeInTheDocument();
  });

  it.each([
    ['a 401', () => Promise.resolve(jsonResponse(401, { error: 'Invalid credentials' }))],
    ['a 500', () => Promise.resolve(jsonResponse(500, { error: 'Internal server error' }))],
    ['a 429', () => Promise.resolve(jsonResponse(429, { error: 'Too many attempts' }))],
    ['a network error', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['a 200 without a token', () => Promise.resolve(jsonResponse(200, { user: 'pilot' }))],
    ['a 200 that is not JSON', () => Promise.resolve(new Response('<html>', { status: 200 }))],
  ])("shows 'Invalid credentials' and enables the form again after %s", async (_name, answer) => {
    vi.stubGlobal('fetch', vi.fn(answer));
    const { user } = renderApp('/');
    await fillAndSubmit(user);

    expect(await screen.findByRole('alert')).toHaveTextContent(/^Invalid credentials$/);
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    expect(screen.getByLabelText('Username')).toBeEnabled();
    expect(screen.getByLabelText('Password')).toBeEnabled();
    expect(localStorage.getItem('token')).toBeNull();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
  });
});
