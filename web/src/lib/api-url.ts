import { env } from '@/config/env';

/** The absolute or same-origin URL of an API path such as `/api/login`. */
export function apiUrl(path: `/api/${string}`): string {
  return `${env.VITE_API_URL}${path}`;
}
