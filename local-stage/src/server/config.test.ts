import { describe, expect, it } from 'vitest';
import { ConfigError, loadStageConfig } from './config';

describe('stage configuration', () => {
  it('defaults to 127.0.0.1:8091, ./data under the repository, a synthetic camera for every aircraft, faults off, 8 sessions a user, 64 in all, 2 connecting publishers a token, 4 an aircraft, 200 PATCHes a session', () => {
    expect(loadStageConfig({}, '/repo')).toEqual({
      port: 8091,
      host: '127.0.0.1',
      dataDir: '/repo/data',
      tokenSecret: undefined,
      faultsEnabled: false,
      syntheticCameras: ['N743AS', 'N953AS', 'N954AS'],
      limits: {
        sessionsPerUser: 8,
        maxSessions: 64,
        connectingPerToken: 2,
        connectingPerAircraft: 4,
        patchesPerSession: 200,
      },
      requestTimeoutMs: 10_000,
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
        STAGE_SYNTHETIC_CAMERAS: 'n953as, N743AS',
        STAGE_SESSIONS_PER_USER: '64',
        STAGE_MAX_SESSIONS: '200',
        STAGE_CONNECTING_PER_TOKEN: '3',
        STAGE_CONNECTING_PER_AIRCRAFT: '6',
        STAGE_PATCHES_PER_SESSION: '50',
        REQUEST_TIMEOUT_MS: '2500',
      },
      '/repo',
    );
    expect(config).toMatchObject({
      port: 9000,
      host: '::1',
      dataDir: '/var/lib/tailcam',
      tokenSecret: 's'.repeat(32),
      faultsEnabled: true,
      syntheticCameras: ['N953AS', 'N743AS'],
      limits: {
        sessionsPerUser: 64,
        maxSessions: 200,
        connectingPerToken: 3,
        connectingPerAircraft: 6,
        patchesPerSession: 50,
      },
      requestTimeoutMs: 2500,
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
          STAGE_SYNTHETIC_CAMERAS: 'N1',
          REQUEST_TIMEOUT_MS: '50',
          STAGE_CONNECTING_PER_TOKEN: '0',
          STAGE_PATCHES_PER_SESSION: 'many',
        },
        '/repo',
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of [
      'STAGE_PORT',
      'STAGE_TOKEN_SECRET',
      'STAGE_FAULTS',
      'STAGE_SYNTHETIC_CAMERAS',
      'REQUEST_TIMEOUT_MS must be a whole number from 100 to 300000',
      'STAGE_CONNECTING_PER_TOKEN must be a whole number from 1 to 32',
      'STAGE_PATCHES_PER_SESSION must be a whole number from 1 to 10000',
    ]) {
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

  it('writes the records of LOG_LEVEL and above, info when unset', () => {
    expect(loadStageConfig({ LOG_LEVEL: 'error' }, '/repo').logLevel).toBe('error');
    expect(loadStageConfig({ LOG_LEVEL: '' }, '/repo').logLevel).toBeUndefined();
    expect(() => loadStageConfig({ LOG_LEVEL: 'loud' }, '/repo')).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    );
  });

  it('publishes a synthetic camera for all aircraft, none, or those listed', () => {
    const cameras = (value: string) =>
      loadStageConfig({ STAGE_SYNTHETIC_CAMERAS: value }, '/repo').syntheticCameras;
    expect(cameras('all')).toEqual(['N743AS', 'N953AS', 'N954AS']);
    expect(cameras('none')).toEqual([]);
    expect(cameras('N954AS')).toEqual(['N954AS']);
    expect(() => cameras('N954AS,N0')).toThrow('unknown: N0');
  });
});
