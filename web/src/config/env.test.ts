import { describe, expect, it } from 'vitest';
import { parseEnv } from './env';

describe('build configuration', () => {
  it('uses the same origin when VITE_API_URL is unset or empty', () => {
    expect(parseEnv({})).toEqual({ VITE_API_URL: '' });
    expect(parseEnv({ VITE_API_URL: '' })).toEqual({ VITE_API_URL: '' });
  });

  it('accepts an http(s) API origin and drops trailing slashes', () => {
    expect(parseEnv({ VITE_API_URL: 'https://api.tailcam.example/' })).toEqual({
      VITE_API_URL: 'https://api.tailcam.example',
    });
  });

  it('names the variable and the problem when the value is not a URL', () => {
    expect(() => parseEnv({ VITE_API_URL: 'api.tailcam.example' })).toThrow(
      /VITE_API_URL: must be an http\(s\) URL or empty/,
    );
  });
});
