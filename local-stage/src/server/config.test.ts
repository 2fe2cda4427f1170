import { describe, expect, it } from 'vitest';
import { ConfigError, loadStageConfig, resolveStageNetwork } from './config';

describe('stage configuration', () => {
  it('defaults to 127.0.0.1:8091, ./data under the repository, a synthetic camera for every aircraft that sleeps after a minute unwatched, faults off, 8 sessions a user, 64 in all, 2 connecting publishers a token, 4 an aircraft, 200 PATCHes a session, no publisher cap', () => {
    expect(loadStageConfig({}, '/repo')).toEqual({
      port: 8091,
      host: '127.0.0.1',
      dataDir: '/repo/data',
      tokenSecret: undefined,
      faultsEnabled: false,
      syntheticCameras: ['N743AS', 'N953AS', 'N954AS'],
      cameraSleepAfterMs: 60_000,
      limits: {
        sessionsPerUser: 8,
        maxSessions: 64,
        connectingPerToken: 2,
        connectingPerAircraft: 4,
        patchesPerSession: 200,
      },
      requestTimeoutMs: 10_000,
      network: { announced: [], announceInterfaces: true, udpPorts: undefined },
      turn: undefined,
      publishMaxKbps: { everyAircraft: undefined, byAircraft: {} },
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
        CAMERA_SLEEP_AFTER_MS: '0',
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
      cameraSleepAfterMs: 0,
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
          CAMERA_SLEEP_AFTER_MS: '-1',
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
      'CAMERA_SLEEP_AFTER_MS must be a whole number from 0 to 86400000',
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

  it('caps publishers as STAGE_PUBLISH_MAX_KBPS says, and refuses a value it cannot read', () => {
    expect(
      loadStageConfig({ STAGE_PUBLISH_MAX_KBPS: 'N743AS=1500,N953AS=800' }, '/repo').publishMaxKbps,
    ).toEqual({ everyAircraft: undefined, byAircraft: { N743AS: 1500, N953AS: 800 } });
    expect(loadStageConfig({ STAGE_PUBLISH_MAX_KBPS: '1500' }, '/repo').publishMaxKbps).toEqual({
      everyAircraft: 1500,
      byAircraft: {},
    });
    expect(() => loadStageConfig({ STAGE_PUBLISH_MAX_KBPS: 'N1=900' }, '/repo')).toThrow(
      'STAGE_PUBLISH_MAX_KBPS must be kbit/s (50–100000) for every aircraft, or tail=kbit/s pairs such as N743AS=1500,N953AS=800 (unknown aircraft N1',
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

  it("reads the API's TURN variables for the WHIP/WHEP answers' ice-server links", () => {
    const secret = 'a-turn-secret-of-at-least-32-characters';
    expect(
      loadStageConfig(
        {
          TURN_URLS: 'turn:turn.example:3478?transport=tcp',
          TURN_SECRET: secret,
          TURN_CREDENTIAL_MINUTES: '30',
        },
        '/repo',
      ).turn,
    ).toEqual({ urls: ['turn:turn.example:3478?transport=tcp'], secret, credentialMinutes: 30 });
    expect(() =>
      loadStageConfig({ TURN_URLS: 'turn:turn.example', STAGE_PORT: 'x' }, '/repo'),
    ).toThrow(/STAGE_PORT[\s\S]*TURN_SECRET: required with TURN_URLS/);
    expect(() =>
      loadStageConfig({ TURN_URLS: 'turn:turn.example', TURN_SECRET: 'short' }, '/repo'),
    ).toThrow(/TURN_SECRET: must be at least 32 characters/);
  });
});

describe('what the stage announces, and on which UDP ports', () => {
  const load = (env: Record<string, string>) => loadStageConfig(env, '/repo');
  const problems = (run: () => unknown): string[] => {
    try {
      run();
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };
  const asyncProblems = async (run: () => Promise<unknown>): Promise<string[]> => {
    try {
      await run();
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('reads addresses and names, whether the interfaces are announced too, and a port range', () => {
    expect(
      load({
        STAGE_ANNOUNCED_ADDRESSES: ' 203.0.113.7, stage.example.com ,2001:db8::7,203.0.113.7',
        STAGE_ANNOUNCE_INTERFACES: '0',
        STAGE_UDP_PORTS: '40000-40099',
      }).network,
    ).toEqual({
      announced: ['203.0.113.7', 'stage.example.com', '2001:db8::7'],
      announceInterfaces: false,
      udpPorts: { min: 40000, max: 40099 },
    });
    expect(load({ STAGE_ANNOUNCE_INTERFACES: 'true' }).network.announceInterfaces).toBe(true);
  });

  it('refuses what cannot be an address, a port range a firewall rule cannot use, and announcing nothing', () => {
    expect(problems(() => load({ STAGE_ANNOUNCED_ADDRESSES: 'stage example, 300.1.2.3' }))).toEqual(
      [
        'STAGE_ANNOUNCED_ADDRESSES must be IP addresses or DNS names separated by commas (not: stage example, 300.1.2.3)',
      ],
    );
    expect(problems(() => load({ STAGE_ANNOUNCED_ADDRESSES: '0.0.0.0,fe80::1' }))).toEqual([
      'STAGE_ANNOUNCED_ADDRESSES cannot announce an unspecified, multicast or link-local address (0.0.0.0, fe80::1)',
    ]);
    for (const range of ['40099-40000', '80-90', '80', '40000-70000', '40000,40001', 'many']) {
      expect(problems(() => load({ STAGE_UDP_PORTS: range }))).toEqual([
        `STAGE_UDP_PORTS must be one port (40000: every peer connection shares it) or a range (40000-40099: one port each), from 1024 to 65535 (got "${range}")`,
      ]);
    }
    expect(load({ STAGE_UDP_PORTS: '40000' }).network.udpPorts).toEqual({ min: 40000, max: 40000 });
    expect(problems(() => load({ STAGE_ANNOUNCE_INTERFACES: 'no' }))[0]).toMatch(
      /^STAGE_ANNOUNCE_INTERFACES must be 1 \(or true\)/,
    );
    expect(problems(() => load({ STAGE_ANNOUNCE_INTERFACES: '0' }))).toEqual([
      'STAGE_ANNOUNCE_INTERFACES=0 needs STAGE_ANNOUNCED_ADDRESSES: otherwise the stage announces no address at all',
    ]);
  });

  it('resolves a DNS name at start, and names one that does not resolve', async () => {
    const lookup = async (name: string) => {
      if (name === 'stage.example.com') return ['203.0.113.9', '2001:db8::9'];
      throw new Error(`getaddrinfo ENOTFOUND ${name}`);
    };
    const config = load({
      STAGE_ANNOUNCED_ADDRESSES: 'stage.example.com,198.18.0.10',
      STAGE_ANNOUNCE_INTERFACES: '0',
    });
    const network = await resolveStageNetwork(config, { lookup });
    expect(network.addresses.map((entry) => [entry.address, entry.source])).toEqual([
      ['203.0.113.9', 'stage.example.com'],
      ['2001:db8::9', 'stage.example.com'],
      ['198.18.0.10', '198.18.0.10'],
    ]);
    expect(network.config).toMatchObject({
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ['203.0.113.9', '2001:db8::9', '198.18.0.10'],
    });
    expect(
      await asyncProblems(() =>
        resolveStageNetwork(
          load({ STAGE_ANNOUNCED_ADDRESSES: 'stage.example.com,nowhere.example.net' }),
          { lookup },
        ),
      ),
    ).toEqual([
      'STAGE_ANNOUNCED_ADDRESSES names a host that does not resolve: nowhere.example.net (getaddrinfo ENOTFOUND nowhere.example.net)',
    ]);
  });

  it('refuses a port range too small for the stage limit, saying how many ports it needs', async () => {
    const config = load({
      STAGE_ANNOUNCED_ADDRESSES: '198.18.0.10',
      STAGE_ANNOUNCE_INTERFACES: '0',
      STAGE_UDP_PORTS: '40000-40099',
    });
    // 64 viewer seats, 32 publishers connecting, one connected camera and encoder per aircraft.
    expect(await asyncProblems(() => resolveStageNetwork(config))).toEqual([
      "STAGE_UDP_PORTS 40000-40099 has 100 ports, too few for the stage's limit: 102 peer connections at once (STAGE_MAX_SESSIONS viewers and the publishers), 1 port(s) each (one per address announced: 198.18.0.10) need 102; widen the range or lower STAGE_MAX_SESSIONS",
    ]);
    const fewer = load({
      STAGE_ANNOUNCED_ADDRESSES: '198.18.0.10',
      STAGE_ANNOUNCE_INTERFACES: '0',
      STAGE_UDP_PORTS: '40000-40099',
      STAGE_MAX_SESSIONS: '62',
    });
    expect((await resolveStageNetwork(fewer)).config.icePortRange).toEqual([40000, 40099]);
  });
});
