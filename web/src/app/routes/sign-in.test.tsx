import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { uiText } from '@/config/ui-text';
import { renderApp } from '@/testing/render-app';

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

async function fillAndSubmit(user: ReturnType<typeof renderApp>['user']) {
  await user.type(screen.getByLabelText(uiText.signIn.usernameLabel), 'pilot');
  await user.type(screen.getByLabelText(uiText.signIn.passwordLabel), 'correct horse');
  await user.click(screen.getByRole('button', { name: uiText.signIn.submit }));
}

describe('sign-in page', () => {
  it("shows 'Welcome Back' with Username and Password fields and their placeholders, both required", () => {
    renderApp('/');
    expect(screen.getByRole('heading', { name: uiText.signIn.title })).toBeInTheDocument();
    const username = screen.getByLabelText(uiText.signIn.usernameLabel);
    const password = screen.getByLabelText(uiText.signIn.passwordLabel);
    expect(username).toHaveAttribute('placeholder', uiText.signIn.usernamePlaceholder);
    expect(password).toHaveAttribute('placeholder', uiText.signIn.passwordPlaceholder);
    expect(username).toBeRequired();
    expect(password).toBeRequired();
    expect(password).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: uiText.signIn.submit })).toBeEnabled();
  });

  it('does not send the form while a field is empty', async () => {
    const fetchSpy = vi.fn();
    vi.stubGlobal('fetch', fetchSpy);
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(uiText.signIn.usernameLabel), 'pilot');
    await user.click(screen.getByRole('button', { name: uiText.signIn.submit }));
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

    const button = screen.getByRole('button', { name: uiText.signIn.submitting });
    expect(button).toBeDisabled();
    expect(screen.getByLabelText(uiText.signIn.usernameLabel)).toBeDisabled();
    expect(screen.getByLabelText(uiText.signIn.passwordLabel)).toBeDisabled();

    answer(jsonResponse(401, { error: 'Invalid credentials' }));
    expect(await screen.findByRole('button', { name: uiText.signIn.submit })).toBeEnabled();
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
    expect(screen.getByRole('heading', { name: uiText.home.title })).toBeInTheDocument();
  });

  it.each([
    ['a 401', () => Promise.resolve(jsonResponse(401, { error: 'Invalid credentials' }))],
    ['a 500', () => Promise.resolve(jsonResponse(500, { error: 'Internal server error' }))],
    ['a network error', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['a 200 without a token', () => Promise.resolve(jsonResponse(200, { user: 'pilot' }))],
    ['a 200 that is not JSON', () => Promise.resolve(new Response('<html>', { status: 200 }))],
  ])("shows 'Invalid credentials' and enables the form again after %s", async (_name, answer) => {
    vi.stubGlobal('fetch', vi.fn(answer));
    const { user } = renderApp('/');
    await fillAndSubmit(user);

    expect((await screen.findByRole('alert')).textContent).toBe(uiText.errors.loginFailed);
    expect(screen.getByRole('button', { name: uiText.signIn.submit })).toBeEnabled();
    expect(screen.getByLabelText(uiText.signIn.usernameLabel)).toBeEnabled();
    expect(screen.getByLabelText(uiText.signIn.passwordLabel)).toBeEnabled();
    expect(localStorage.getItem('token')).toBeNull();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
  });

  it.each([
    ['1 second', 1],
    ['4 seconds', 4],
  ])(
    "shows the server's wait after a 429 ('try again in %s'), not 'Invalid credentials'",
    async (wait, seconds) => {
      const message = `Too many sign-in attempts; try again in ${wait}`;
      vi.stubGlobal(
        'fetch',
        vi.fn(() =>
          Promise.resolve(
            new Response(JSON.stringify({ error: message }), {
              status: 429,
              headers: { 'Content-Type': 'application/json', 'Retry-After': String(seconds) },
            }),
          ),
        ),
      );
      const { user } = renderApp('/');
      await fillAndSubmit(user);

      expect((await screen.findByRole('alert')).textContent).toBe(message);
      expect(screen.getByRole('button', { name: uiText.signIn.submit })).toBeEnabled();
    },
  );

  it('asks for a moment after a 429 without a message', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(new Response('busy', { status: 429 }))),
    );
    const { user } = renderApp('/');
    await fillAndSubmit(user);

    expect((await screen.findByRole('alert')).textContent).toBe(uiText.errors.loginRateLimited);
  });
});
