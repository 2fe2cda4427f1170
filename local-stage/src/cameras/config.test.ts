import { describe, expect, it } from 'vitest';
import { ConfigError, loadCameraProcessConfig } from './config';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadCameraProcessConfig(env, '/repo');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('camera process configuration', () => {
  it('defaults to the stage at 127.0.0.1:8091, ./data, every aircraft, 640x360@30 idling after 5 s', () => {
    expect(loadCameraProcessConfig({}, '/repo')).toEqual({
      stageUrl: 'http://127.0.0.1:8091',
      dataDir: '/repo/data',
      tokenSecret: undefined,
      stageIds: ['N743AS', 'N953AS', 'N954AS'],
      camera: { width: 640, height: 360, fps: 30, idleMs: 5000, simulcast: true },
      logFormat: undefined,
    });
  });

  it('reads every variable, and reaches a stage listening on every address on loopback', () => {
    const config = loadCameraProcessConfig(
      {
        STAGE_HOST: '0.0.0.0',
        STAGE_PORT: '9000',
        DATA_DIR: 'var/tailcam',
        STAGE_TOKEN_SECRET: 's'.repeat(32),
        STAGE_SYNTHETIC_CAMERAS: 'n954as, N743AS',
        STAGE_CAMERA_WIDTH: '1280',
        STAGE_CAMERA_HEIGHT: '720',
        STAGE_CAMERA_FPS: '15',
        STAGE_CAMERA_IDLE_MS: '0',
        STAGE_CAMERA_SIMULCAST: '0',
        LOG_FORMAT: 'pretty',
      },
      '/repo',
    );
    expect(config).toEqual({
      stageUrl: 'http://127.0.0.1:9000',
      dataDir: '/repo/var/tailcam',
      tokenSecret: 's'.repeat(32),
      stageIds: ['N954AS', 'N743AS'],
      camera: { width: 1280, height: 720, fps: 15, idleMs: 0, simulcast: false },
      logFormat: 'pretty',
    });
    expect(loadCameraProcessConfig({ STAGE_HOST: '::1' }, '/repo').stageUrl).toBe(
      'http://[::1]:8091',
    );
    expect(loadCameraProcessConfig({ STAGE_HOST: '::' }, '/repo').stageUrl).toBe(
      'http://[::1]:8091',
    );
  });

  it('publishes nothing with STAGE_SYNTHETIC_CAMERAS=none', () => {
    expect(loadCameraProcessConfig({ STAGE_SYNTHETIC_CAMERAS: 'none' }, '/repo').stageIds).toEqual(
      [],
    );
  });

  it('writes the records of LOG_LEVEL and above, as the stage does', () => {
    expect(loadCameraProcessConfig({ LOG_LEVEL: 'warn' }, '/repo').logLevel).toBe('warn');
    expect(problemsOf({ LOG_LEVEL: 'chatty' })).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('names every bad variable in one readable error, an unknown tail number among them', () => {
    const problems = problemsOf({
      STAGE_PORT: '0',
      STAGE_TOKEN_SECRET: 'short',
      STAGE_SYNTHETIC_CAMERAS: 'N743AS,N1',
      STAGE_CAMERA_FPS: '60',
      LOG_FORMAT: 'xml',
    });
    expect(problems).toEqual([
      'STAGE_PORT must be a whole number from 1 to 65535 (got "0")',
      'STAGE_TOKEN_SECRET must be at least 32 characters',
      'STAGE_SYNTHETIC_CAMERAS must be all, none or tail numbers from N743AS, N953AS, N954AS (unknown: N1)',
      'STAGE_CAMERA_FPS must be a whole number from 1 to 30 (got "60")',
      'LOG_FORMAT must be json or pretty',
    ]);
  });

  it('refuses odd and portrait picture sizes', () => {
    expect(problemsOf({ STAGE_CAMERA_WIDTH: '641', STAGE_CAMERA_HEIGHT: '640' })).toEqual([
      'STAGE_CAMERA_WIDTH and STAGE_CAMERA_HEIGHT must be even (I420 video)',
    ]);
    expect(problemsOf({ STAGE_CAMERA_WIDTH: '360', STAGE_CAMERA_HEIGHT: '640' })).toEqual([
      'STAGE_CAMERA_HEIGHT must not exceed STAGE_CAMERA_WIDTH (landscape cameras)',
    ]);
  });
});
