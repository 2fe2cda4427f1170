/**
 * The viewer's login token, kept in localStorage under 'token' (docs/product.md#data). Only its
 * presence is checked on the client (docs/product.md#route-guard); the API decides whether it is
 * valid.
 */
export const AUTH_TOKEN_KEY = 'token';

export function getAuthToken(): string | null {
  return localStorage.getItem(AUTH_TOKEN_KEY);
}

export function setAuthToken(token: string): void {
  localStorage.setItem(AUTH_TOKEN_KEY, token);
}

export function clearAuthToken(): void {
  localStorage.removeItem(AUTH_TOKEN_KEY);
}

export function hasAuthToken(): boolean {
  return getAuthToken() !== null;
}
