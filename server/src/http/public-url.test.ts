import { describe, expect, it } from 'vitest';
import { isLoopbackHost, publicUrlWarning } from './public-url';

describe('the PUBLIC_URL warning at start', () => {
  it.each(['0.0.0.0', '::', '192.168.1.20', '10.0.0.5', 'tailcam.internal', 'fe80::1'])(
    'warns with the local stage on %s and no PUBLIC_URL',
    (host) => {
      const warning = publicUrlWarning({ host, publicUrl: undefined, stageProvider: 'local' });
      expect(warning).toContain(`PUBLIC_URL is unset and the server listens on ${host}`);
      expect(warning).toContain('Host');
    },
  );

  it.each(['127.0.0.1', '127.0.1.1', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])(
    'says nothing on the loopback address %s',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
      expect(publicUrlWarning({ host, publicUrl: undefined, stageProvider: 'local' })).toBe(
        undefined,
      );
    },
  );

  it('says nothing when PUBLIC_URL is set, or with IVS (whose tokens name AWS endpoints)', () => {
    expect(
      publicUrlWarning({
        host: '0.0.0.0',
        publicUrl: 'https://tailcam.example',
        stageProvider: 'local',
      }),
    ).toBe(undefined);
    expect(publicUrlWarning({ host: '0.0.0.0', publicUrl: undefined, stageProvider: 'ivs' })).toBe(
      undefined,
    );
  });

  it('does not take a look-alike for loopback', () => {
    for (const host of ['127.0.0.1.evil.example', '1127.0.0.1', 'localhost.evil.example']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
