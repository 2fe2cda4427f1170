import { apiUrl } from '@/lib/api-url';
import { stringField } from '@/lib/parse-json';

export interface LoginCredentials {
  username: string;
  password: string;
}

/**
 * Exchanges credentials for a login token. Throws on any failure (refusal, server error,
 * network error, a response without a token); the form shows one generic message for all.
 */
export async function login(credentials: LoginCredentials, signal?: AbortSignal): Promise<string> {
  const response = await fetch(apiUrl('/api/login'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(credentials),
    signal,
  });
  if (!response.ok) throw new Error(`Login refused with status ${response.status}`);
  const token = stringField(await response.json(), 'token');
  if (!token) throw new Error('Login response has no token');
  return token;
}
