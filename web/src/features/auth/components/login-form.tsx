import { LogIn } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { uiText } from '@/config/ui-text';
import { ApiError } from '@/lib/api-client';
import { login } from '../api/login';

const text = uiText.signIn;

const inputClassName =
  'block w-full rounded-lg border border-slate-700 bg-slate-900 px-3.5 py-2.5 text-slate-100 placeholder:text-slate-500 focus:border-sky-400 focus:ring-2 focus:ring-sky-400/40 focus:outline-none disabled:cursor-not-allowed disabled:opacity-60';

/**
 * A 429 says how long to wait (the API's message, with its seconds): a person typing the right
 * password while a delay holds must not read that it is wrong. Every other failure reads the
 * same (docs/product.md#error-catalogue); the API's own message is for logs.
 */
function failureMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    return error.serverMessage ?? uiText.errors.loginRateLimited;
  }
  return uiText.errors.loginFailed;
}

interface LoginFormProps {
  onSuccess: (token: string) => void;
}

export function LoginForm({ onSuccess }: LoginFormProps) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (submitting) return;
    setSubmitting(true);
    setFailure(undefined);
    try {
      const token = await login({ username, password });
      onSuccess(token);
    } catch (error) {
      setFailure(failureMessage(error));
      setSubmitting(false);
    }
  }

  return (
    <form className="space-y-5" onSubmit={handleSubmit} aria-busy={submitting}>
      <div className="space-y-1.5">
        <label htmlFor="username" className="block text-sm font-medium text-slate-200">
          {text.usernameLabel}
        </label>
        <input
          id="username"
          name="username"
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          disabled={submitting}
          placeholder={text.usernamePlaceholder}
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          className={inputClassName}
        />
      </div>
      <div className="space-y-1.5">
        <label htmlFor="password" className="block text-sm font-medium text-slate-200">
          {text.passwordLabel}
        </label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          disabled={submitting}
          placeholder={text.passwordPlaceholder}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          className={inputClassName}
        />
      </div>
      {failure !== undefined && (
        <p
          role="alert"
          className="rounded-lg border border-red-500/40 bg-red-500/10 px-3.5 py-2.5 text-sm text-red-200"
        >
          {failure}
        </p>
      )}
      <button
        type="submit"
        disabled={submitting}
        className="inline-flex w-full items-center justify-center gap-2 rounded-lg bg-sky-500 px-4 py-2.5 font-semibold text-slate-950 transition hover:bg-sky-400 focus-visible:ring-2 focus-visible:ring-sky-300 focus-visible:ring-offset-2 focus-visible:ring-offset-slate-900 focus-visible:outline-none disabled:cursor-wait disabled:opacity-70"
      >
        <LogIn aria-hidden="true" className="size-4" />
        {submitting ? text.submitting : text.submit}
      </button>
    </form>
  );
}
