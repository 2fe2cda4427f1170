import { describe, expect, it } from 'vitest';
import { parseStoreConfig } from './cli/cli-config';
import { ConfigError, parseConfig } from './config';
import { parseStageArns } from './config-values';
import { ivsSdkFile } from './paths';

const root = '/srv/tailcam';
const arns =
  'N743AS=arn:aws:ivs:us-east-1:123456789012:stage/AAAAAAAAAAAA,N953AS=arn:aws:ivs:us-east-1:123456789012:stage/BBBBBBBBBBBB,N954AS=arn:aws:ivs:us-east-1:123456789012:stage/CCCCCCCCCCCC';

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env, root);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('has working defaults for the embedded local stage', () => {
    const config = parseConfig({}, root);
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/srv/tailcam/data',
      databaseUrl: undefined,
      authSecret: undefined,
      stageProvider: 'local',
      participantTokenMinutes: 60,
      loginTokenHours: 12,
      localStage: {
        url: 'http://127.0.0.1:8091',
        sdkFile: '/srv/tailcam/local-stage/dist/stage-sdk.js',
      },
      webDistDir: '/srv/tailcam/web/dist',
      corsOrigins: [],
      trustProxy: false,
      logLevel: 'info',
      logFormat: undefined,
      publicUrl: undefined,
      rateLimitStore: 'memory',
      turn: undefined,
    });
    expect(config.ivs.sdkFile).toBe(ivsSdkFile(root));
    expect(config.ivs.sdkFile).toMatch(/amazon-ivs-web-broadcast\.js$/);
  });

  it('resolves relative paths from the repository root, not the working directory', () => {
    const config = parseConfig({ DATA_DIR: 'var/db', WEB_DIST_DIR: '/opt/web' }, root);
    expect(config.dataDir).toBe('/srv/tailcam/var/db');
    expect(config.webDistDir).toBe('/opt/web');
  });

  it('reads a complete ivs configuration', () => {
    const config = parseConfig(
      {
        STAGE_PROVIDER: 'ivs',
        AUTH_SECRET: 'x'.repeat(40),
        AWS_REGION: 'us-east-1',
        IVS_STAGE_ARNS: arns,
        PUBLIC_URL: 'https://tailcam.example/',
        CORS_ORIGINS: 'https://a.example, https://b.example',
        TRUST_PROXY: '1',
      },
      root,
    );
    expect(config.ivs.stageArns.N953AS).toBe(
      'arn:aws:ivs:us-east-1:123456789012:stage/BBBBBBBBBBBB',
    );
    expect(config.publicUrl).toBe('https://tailcam.example');
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.trustProxy).toBe(1);
  });

  it('names every bad variable in one readable error', () => {
    expect(
      problemsOf({
        PORT: 'eighty',
        STAGE_PROVIDER: 'youtube',
        PARTICIPANT_TOKEN_MINUTES: '0',
        LOG_LEVEL: 'loud',
        AUTH_SECRET: 'short',
        PUBLIC_URL: 'tailcam.example',
      }),
    ).toEqual([
      'PORT: must be a whole number between 0 and 65535',
      'AUTH_SECRET: must be at least 32 characters long',
      'STAGE_PROVIDER: must be "local" or "ivs"',
      'PARTICIPANT_TOKEN_MINUTES: must be at least 1',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
      'PUBLIC_URL: must be an http(s) URL (the address browsers use to reach this server)',
    ]);
    expect(() => parseConfig({ PORT: 'x' }, root)).toThrow(/^Invalid configuration:\n {2}- PORT/);
  });

  it('reads a TURN server for the tokens, its credentials valid 120 minutes unless told otherwise', () => {
    const secret = 'a-turn-secret-of-at-least-32-characters';
    expect(
      parseConfig({ TURN_URLS: 'turn:turn.example:3478?transport=tcp', TURN_SECRET: secret }, root)
        .turn,
    ).toEqual({
      urls: ['turn:turn.example:3478?transport=tcp'],
      secret,
      credentialMinutes: 120,
    });
    expect(
      problemsOf({
        TURN_URLS: 'turn:turn.example',
        TURN_SECRET: secret,
        TURN_CREDENTIAL_MINUTES: '30',
      }),
    ).toEqual(['TURN_CREDENTIAL_MINUTES: must be at least PARTICIPANT_TOKEN_MINUTES (60)']);
    expect(problemsOf({ TURN_URLS: 'turn:turn.example', TURN_SECRET: 'short' })).toEqual([
      expect.stringMatching(/^TURN_SECRET: must be at least 32 characters/),
    ]);
    expect(problemsOf({ TURN_URLS: 'turns:turn.example?transport=udp' })).toEqual([
      expect.stringMatching(
        /^TURN_URLS: "turns:turn.example\?transport=udp": turns: is TURN over TLS/,
      ),
    ]);
    expect(problemsOf({ TURN_URLS: 'turn:turn.example' })).toEqual([
      "TURN_SECRET: required with TURN_URLS (coturn's static-auth-secret)",
    ]);
  });

  it('requires AUTH_SECRET, AWS_REGION and stage ARNs with ivs', () => {
    const problems = problemsOf({ STAGE_PROVIDER: 'ivs' });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^AUTH_SECRET: required with STAGE_PROVIDER=ivs/);
    expect(problems[1]).toMatch(/^AWS_REGION: required/);
    expect(problems[2]).toMatch(/^IVS_STAGE_ARNS: required/);
  });

  it('requires a stage ARN for each of the three streams', () => {
    const base = { STAGE_PROVIDER: 'ivs', AUTH_SECRET: 'x'.repeat(40), AWS_REGION: 'eu-west-1' };
    expect(
      problemsOf({
        ...base,
        IVS_STAGE_ARNS: 'N743AS=arn:aws:ivs:us-east-1:123456789012:stage/AAAAAAAAAAAA',
      }),
    ).toEqual(['IVS_STAGE_ARNS: no stage ARN for N953AS, N954AS']);
    expect(problemsOf({ ...base, IVS_STAGE_ARNS: `${arns},N111XX=arn:x` })).toEqual([
      'IVS_STAGE_ARNS: "N111XX=arn:x" must be STREAM=ARN with STREAM one of N743AS, N953AS, N954AS',
    ]);
    expect(
      problemsOf({ ...base, IVS_STAGE_ARNS: arns.replace('stage/AAAA', 'channel/AAAA') }),
    ).toEqual(['IVS_STAGE_ARNS: the ARN for N743AS is not an IVS stage ARN']);
  });

  it('refuses bad CORS origins, TRUST_PROXY values and database URLs', () => {
    expect(
      problemsOf({
        CORS_ORIGINS: 'https://ok.example,https://bad.example/path',
        TRUST_PROXY: 'maybe',
        DATABASE_URL: 'mysql://x',
      }),
    ).toEqual([
      'DATABASE_URL: must be a postgres:// or postgresql:// URL',
      'TRUST_PROXY: must be true, false, a number of hops, or a comma-separated list of addresses',
      'CORS_ORIGINS: "https://bad.example/path" is not an origin such as https://app.example',
    ]);
  });

  it('still applies the rules between variables when another variable is bad', () => {
    expect(problemsOf({ STAGE_PROVIDER: 'ivs', PORT: 'x', LOG_FORMAT: 'fancy' })).toEqual([
      'PORT: must be a whole number between 0 and 65535',
      'LOG_FORMAT: must be json or pretty',
      expect.stringMatching(/^AUTH_SECRET: required with STAGE_PROVIDER=ivs/),
      'AWS_REGION: required with STAGE_PROVIDER=ivs (e.g. us-east-1)',
      'IVS_STAGE_ARNS: required with STAGE_PROVIDER=ivs (N743AS=arn:aws:ivs:...,N953AS=arn:aws:ivs:...,N954AS=arn:aws:ivs:...)',
    ]);
  });

  it('names a bad variable once, not again as missing', () => {
    expect(
      problemsOf({
        STAGE_PROVIDER: 'ivs',
        AUTH_SECRET: 'short',
        AWS_REGION: 'eu-west-1',
        IVS_STAGE_ARNS: 'N111XX=arn:x',
      }),
    ).toEqual([
      'AUTH_SECRET: must be at least 32 characters long',
      'IVS_STAGE_ARNS: "N111XX=arn:x" must be STREAM=ARN with STREAM one of N743AS, N953AS, N954AS',
    ]);
    expect(problemsOf({ RATE_LIMIT_STORE: 'postgres', DATABASE_URL: 'mysql://x' })).toEqual([
      'DATABASE_URL: must be a postgres:// or postgresql:// URL',
    ]);
  });

  it('reads every form of TRUST_PROXY', () => {
    const trustProxy = (value: string) => parseConfig({ TRUST_PROXY: value }, root).trustProxy;
    expect(trustProxy('true')).toBe(true);
    expect(trustProxy('false')).toBe(false);
    expect(trustProxy(' ')).toBe(false);
    expect(trustProxy('2')).toBe(2);
    expect(trustProxy('10.0.0.1, 10.0.0.0/8,::1')).toEqual(['10.0.0.1', '10.0.0.0/8', '::1']);
  });

  it('takes LOG_FORMAT json or pretty, and leaves it to the terminal when unset', () => {
    expect(parseConfig({ LOG_FORMAT: 'pretty' }, root).logFormat).toBe('pretty');
    expect(parseConfig({ LOG_FORMAT: 'json' }, root).logFormat).toBe('json');
    expect(parseConfig({ LOG_FORMAT: '' }, root).logFormat).toBeUndefined();
  });

  it('parses stage ARNs for the ivs CLI, keeping the good entries beside the bad', () => {
    expect(parseStageArns(`${arns.split(',')[1]}, N111XX=arn:x`)).toEqual({
      arns: { N953AS: 'arn:aws:ivs:us-east-1:123456789012:stage/BBBBBBBBBBBB' },
      problems: ['"N111XX=arn:x" must be STREAM=ARN with STREAM one of N743AS, N953AS, N954AS'],
    });
  });

  it('shares the login rate limit in PostgreSQL only when DATABASE_URL names one', () => {
    expect(problemsOf({ RATE_LIMIT_STORE: 'postgres' })).toEqual([
      'RATE_LIMIT_STORE: "postgres" needs DATABASE_URL (the windows live in that database)',
    ]);
    expect(problemsOf({ RATE_LIMIT_STORE: 'redis' })).toEqual([
      'RATE_LIMIT_STORE: must be "memory" or "postgres"',
    ]);
    expect(
      parseConfig({ RATE_LIMIT_STORE: 'postgres', DATABASE_URL: 'postgresql://db/tailcam' }, root)
        .rateLimitStore,
    ).toBe('postgres');
  });

  it("sizes the stage's signalling door for an office behind one address unless told otherwise", () => {
    expect(parseConfig({}, root).stageProxy).toEqual({
      socketsPerAddress: 160,
      socketsTotal: 200,
      joinSeconds: 5,
      pingSeconds: 10,
    });
    // Unset, the per-address cap follows a lower total instead of stopping the start.
    expect(parseConfig({ STAGE_SOCKETS_TOTAL: '100' }, root).stageProxy).toMatchObject({
      socketsPerAddress: 100,
      socketsTotal: 100,
    });
    expect(problemsOf({ STAGE_SOCKETS_PER_ADDRESS: '0' })).toEqual([
      'STAGE_SOCKETS_PER_ADDRESS: must be at least 1',
    ]);
    expect(
      parseConfig({ STAGE_SOCKETS_PER_ADDRESS: '200', STAGE_JOIN_SECONDS: '10' }, root).stageProxy,
    ).toMatchObject({ socketsPerAddress: 200, joinSeconds: 10 });
    expect(problemsOf({ STAGE_SOCKETS_PER_ADDRESS: '300', STAGE_SOCKETS_TOTAL: '257' })).toEqual([
      'STAGE_SOCKETS_TOTAL: must be at most 256',
    ]);
    expect(problemsOf({ STAGE_SOCKETS_PER_ADDRESS: '250' })).toEqual([
      'STAGE_SOCKETS_PER_ADDRESS: must not exceed STAGE_SOCKETS_TOTAL (200)',
    ]);
  });

  it('limits participant tokens per user to 30 a minute unless told otherwise', () => {
    expect(parseConfig({}, root).tokenRateLimitPerMinute).toBe(30);
    expect(parseConfig({ TOKEN_RATE_LIMIT_PER_MINUTE: '600' }, root).tokenRateLimitPerMinute).toBe(
      600,
    );
    expect(problemsOf({ TOKEN_RATE_LIMIT_PER_MINUTE: '0' })).toEqual([
      'TOKEN_RATE_LIMIT_PER_MINUTE: must be at least 1',
    ]);
  });

  it('lets 120 sign-in attempts a minute through per address, 10 per name at one address and 100 per name before delays up to 60 s, unless told otherwise', () => {
    expect(parseConfig({}, root).loginLimits).toEqual({
      attemptsPerAddressPerMinute: 120,
      attemptsPerNameIp: 10,
      attemptsPerName: 100,
      maxDelaySeconds: 60,
    });
    expect(
      parseConfig(
        {
          LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '600',
          LOGIN_ATTEMPTS_PER_NAME_IP: '5',
          LOGIN_ATTEMPTS_PER_NAME: '500',
          LOGIN_MAX_DELAY_SECONDS: '300',
        },
        root,
      ).loginLimits,
    ).toEqual({
      attemptsPerAddressPerMinute: 600,
      attemptsPerNameIp: 5,
      attemptsPerName: 500,
      maxDelaySeconds: 300,
    });
    expect(
      problemsOf({
        LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '0',
        LOGIN_ATTEMPTS_PER_NAME_IP: '0',
        LOGIN_MAX_DELAY_SECONDS: '3600',
      }),
    ).toEqual([
      'LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: must be at least 1',
      'LOGIN_ATTEMPTS_PER_NAME_IP: must be at least 1',
      'LOGIN_MAX_DELAY_SECONDS: must be at most 600',
    ]);
  });

  it('limits WHIP offers per address to 30 a minute unless told otherwise', () => {
    expect(parseConfig({}, root).whipRateLimitPerMinute).toBe(30);
    expect(parseConfig({ WHIP_RATE_LIMIT_PER_MINUTE: '120' }, root).whipRateLimitPerMinute).toBe(
      120,
    );
    expect(problemsOf({ WHIP_RATE_LIMIT_PER_MINUTE: '0' })).toEqual([
      'WHIP_RATE_LIMIT_PER_MINUTE: must be at least 1',
    ]);
  });

  it('limits WHEP offers per address to 300 a minute and trickle PATCHes to 1500 unless told otherwise', () => {
    expect(parseConfig({}, root)).toMatchObject({
      whepRateLimitPerMinute: 300,
      trickleRateLimitPerMinute: 1_500,
    });
    expect(
      parseConfig({ WHEP_RATE_LIMIT_PER_MINUTE: '60', TRICKLE_RATE_LIMIT_PER_MINUTE: '300' }, root),
    ).toMatchObject({ whepRateLimitPerMinute: 60, trickleRateLimitPerMinute: 300 });
    expect(problemsOf({ WHEP_RATE_LIMIT_PER_MINUTE: '0' })).toEqual([
      'WHEP_RATE_LIMIT_PER_MINUTE: must be at least 1',
    ]);
  });

  it('gives a client 10 seconds to send a whole request unless told otherwise', () => {
    expect(parseConfig({}, root).requestTimeoutMs).toBe(10_000);
    expect(parseConfig({ REQUEST_TIMEOUT_MS: '2500' }, root).requestTimeoutMs).toBe(2500);
    expect(problemsOf({ REQUEST_TIMEOUT_MS: '0' })).toEqual([
      'REQUEST_TIMEOUT_MS: must be at least 100',
    ]);
  });

  it('gives the users CLI its database settings without requiring the provider settings', () => {
    expect(parseStoreConfig({ STAGE_PROVIDER: 'ivs', DATA_DIR: 'db' }, root)).toEqual({
      repoRoot: root,
      dataDir: '/srv/tailcam/db',
      databaseUrl: undefined,
    });
  });
});
