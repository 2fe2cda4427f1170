import { describe, expect, it } from 'vitest';
import { ConfigError, loadStageConfig } from './config';

describe('stage configuration', () => {
  it('defaults to 127.0.0.1:8091, ./data under the repository, 640x360 at 30 fps, faults off, 8 sessions a user', () => {
    expect(loadStageConfig({}, '/repo')).toEqual({
      port: 8091,
      host: '127.0.0.1',
      dataDir: '/repo/data',
      tokenSecret: undefined,
      faultsEnabled: false,
      camera: { width: 640, height: 360, fps: 30, idleMs: 5000 },
      sessionsPerUser: 8,
    });
  });

  it('reads every variable', () => {
    const config = loadStageConfig(
      {
        STAGE_PORT: '9000',
        STAGE_HOST: '::1',
        DATA_DIR: '/var/lib/tailcam',
        STAGE_TOKEN_SECRET: 's'.repeat(32),
        STAGE_FAULTS: '1',
        STAGE_CAMERA_WIDTH: '1280',
        STAGE_CAMERA_HEIGHT: '720',
        STAGE_CAMERA_FPS: '25',
        STAGE_CAMERA_IDLE_MS: '0',
        STAGE_SESSIONS_PER_USER: '64',
      },
      '/repo',
    );
    expect(config).toMatchObject({
      port: 9000,
      host: '::1',
      dataDir: '/var/lib/tailcam',
      tokenSecret: 's'.repeat(32),
      faultsEnabled: true,
      camera: { width: 1280, height: 720, fps: 25, idleMs: 0 },
      sessionsPerUser: 64,
    });
  });

  it('names every bad variable in one readable error', () => {
    let error: unknown;
    try {
      loadStageConfig(
        {
          STAGE_PORT: 'eighty',
          STAGE_TOKEN_SECRET: 'short',
          STAGE_FAULTS: 'yes',
          STAGE_CAMERA_WIDTH: '1920',
        },
        '/repo',
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['STAGE_PORT', 'STAGE_TOKEN_SECRET', 'STAGE_FAULTS', 'STAGE_CAMERA_WIDTH']) {
      expect(message).toContain(name);
    }
  });

  it('prints JSON or readable log lines as LOG_FORMAT says, else as the terminal suggests', () => {
    expect(loadStageConfig({ LOG_FORMAT: 'pretty' }, '/repo').logFormat).toBe('pretty');
    expect(loadStageConfig({ LOG_FORMAT: '' }, '/repo').logFormat).toBeUndefined();
    expect(() => loadStageConfig({ LOG_FORMAT: 'fancy' }, '/repo')).toThrow(
      'LOG_FORMAT must be json or pretty',
    );
  });

  it('refuses odd or portrait camera sizes', () => {
    expect(() => loadStageConfig({ STAGE_CAMERA_WIDTH: '641' }, '/repo')).toThrow(/even/);
    expect(() =>
      loadStageConfig({ STAGE_CAMERA_WIDTH: '360', STAGE_CAMERA_HEIGHT: '640' }, '/repo'),
    ).toThrow(/landscape|exceed|720/);
  });
});
