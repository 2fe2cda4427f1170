/**
 * Build-time configuration, read once and checked. Only public values belong here: anything
 * prefixed VITE_ ends up in the browser bundle, so never a secret.
 */

export interface Env {
  /** Origin of the API, e.g. `https://api.tailcam.example`. Empty means the app's own origin. */
  VITE_API_URL: string;
}

export function parseEnv(source: Record<string, unknown>): Env {
  const problems: string[] = [];
  const apiUrl = source.VITE_API_URL ?? '';
  if (typeof apiUrl !== 'string') {
    problems.push('VITE_API_URL: must be a string');
  } else if (apiUrl !== '' && !/^https?:\/\/[^/\s]+(\/[^\s]*)?$/.test(apiUrl)) {
    problems.push(`VITE_API_URL: must be an http(s) URL or empty, got "${apiUrl}"`);
  }
  if (problems.length > 0 || typeof apiUrl !== 'string') {
    throw new Error(`Invalid build configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return { VITE_API_URL: apiUrl.replace(/\/+$/, '') };
}

export const env = parseEnv(import.meta.env);
