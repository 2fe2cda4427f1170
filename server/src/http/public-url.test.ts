import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from './public-url';

describe('which HOST is this machine only', () => {
  it.each(['127.0.0.1', '127.0.1.1', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])(
    'takes %s for loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.20', '10.0.0.5', 'tailcam.internal', 'fe80::1'])(
    'does not take %s for loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it('does not take a look-alike for loopback', () => {
    for (const host of ['127.0.0.1.evil.example', '1127.0.0.1', 'localhost.evil.example']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
