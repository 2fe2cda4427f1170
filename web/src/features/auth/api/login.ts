import * as z from 'zod/mini';
import { nonBlankString, postJson } from '@/lib/api-client';

export interface LoginCredentials {
  username: string;
  password: string;
}

const loginResponse = z.object({ token: nonBlankString });

/**
 * Exchanges credentials for a login token. Throws an `ApiError` on any failure (refusal, server
 * error, network error, a response without a token); the form shows a 429's wait, and one
 * generic message for all the rest.
 */
export async function login(credentials: LoginCredentials, signal?: AbortSignal): Promise<string> {
  const { token } = await postJson('/api/login', credentials, loginResponse, { signal });
  return token;
}
