import { postJson, textField } from '@/lib/api-client';

export interface LoginCredentials {
  username: string;
  password: string;
}

/**
 * Exchanges credentials for a login token. Throws an `ApiError` on any failure (refusal, server
 * error, network error, a response without a token); the form shows a 429's wait, and one
 * generic message for all the rest.
 */
export async function login(credentials: LoginCredentials, signal?: AbortSignal): Promise<string> {
  return postJson('/api/login', credentials, (answer) => textField(answer, 'token'), { signal });
}
