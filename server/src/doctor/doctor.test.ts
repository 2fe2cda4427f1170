import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AccessDeniedException,
  GetStageCommand,
  IVSRealTimeClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-ivs-realtime';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../db/data-dir-lock';
import { migrate } from '../db/migrations';
import { openUserStore } from '../db/open-store';
import { openPostgresClient } from '../db/postgres-client';
import { fakeLocalSdk, fakeWebDist, repoRoot, tempDir } from '../test/helpers';
import { closedPort } from '../test/raw-http';
import { formatCheck, runDoctor, summary } from './doctor';
import { useTemporarySchema } from '../test/postgres-schema';

const testDatabaseUrl = process.env.TEST_DATABASE_URL;
if (testDatabaseUrl === undefined) {
  console.warn(
    '\n!!! SKIPPED: the doctor tests against PostgreSQL (TEST_DATABASE_URL is not set).\n' +
      '!!! Run them with: node scripts/with-postgres.mjs npm test -w server\n',
  );
}

const arn = (region: string, id: string) => `arn:aws:ivs:${region}:123456789012:stage/${id}`;
const arns = (region = 'eu-west-1') =>
  ['N743AS', 'N953AS', 'N954AS'].map((id) => `${id}=${arn(region, `${id}AAAAAA`)}`).join(',');

function ivsEnv(overrides: Record<string, string> = {}) {
  return {
    STAGE_PROVIDER: 'ivs',
    AUTH_SECRET: 'x'.repeat(40),
    AWS_REGION: 'eu-west-1',
    IVS_STAGE_ARNS: arns(),
    DATA_DIR: join(tempDir(), 'data'),
    WEB_DIST_DIR: fakeWebDist(),
    ...overrides,
  };
}

function awsMock() {
  const client = new IVSRealTimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  });
  return { client, mock: mockClient(client) };
}

describe('npm run doctor', () => {
  it('passes a sound ivs deployment, asking AWS about each stage with GetStage', async () => {
    const { client, mock } = awsMock();
    mock.on(GetStageCommand).callsFake((input: { arn: string }) => ({
      stage: { arn: input.arn, name: `tailcam-${input.arn.slice(-12, -6)}` },
    }));
    const results = await runDoctor({
      env: ivsEnv(),
      repoRoot,
      createIvsClient: (region) => {
        expect(region).toBe('eu-west-1');
        return client;
      },
    });
    expect(results.map((result) => [result.status, result.name])).toEqual([
      ['PASS', 'configuration'],
      ['PASS', 'database'],
      ['PASS', 'stage SDK'],
      ['PASS', 'web app'],
      ['PASS', 'AWS N743AS'],
      ['PASS', 'AWS N953AS'],
      ['PASS', 'AWS N954AS'],
      ['SKIP', 'stage network'],
      ['SKIP', 'public URL'],
    ]);
    expect(mock.commandCalls(GetStageCommand).map((call) => call.args[0].input)).toEqual(
      ['N743AS', 'N953AS', 'N954AS'].map((id) => ({ arn: arn('eu-west-1', `${id}AAAAAA`) })),
    );
    expect(formatCheck(results[4]!)).toBe(
      `PASS  AWS N743AS    stage "tailcam-N743AS" ${arn('eu-west-1', 'N743ASAAAAAA')} answers`,
    );
    expect(results[2]!.detail).toMatch(/^amazon-ivs-web-broadcast \d+\.\d+\.\d+ at node_modules/);
    expect(results[0]!.detail).toContain('fit for one instance only');
    expect(summary(results)).toBe('doctor: 7 passed, 0 failed, 2 skipped');
  });

  it('fails the stages AWS refuses or does not know, and an ARN from another region', async () => {
    const { client, mock } = awsMock();
    const [first, second] = [arn('eu-west-1', 'N743ASAAAAAA'), arn('eu-west-1', 'N953ASAAAAAA')];
    mock
      .on(GetStageCommand, { arn: first })
      .rejects(new AccessDeniedException({ $metadata: {}, message: 'no' }))
      .on(GetStageCommand, { arn: second })
      .rejects(new ResourceNotFoundException({ $metadata: {}, message: 'Stage not found' }));
    const env = ivsEnv({
      IVS_STAGE_ARNS: arns().replace(
        /N954AS=arn:aws:ivs:eu-west-1/,
        'N954AS=arn:aws:ivs:us-east-1',
      ),
    });
    const results = await runDoctor({ env, repoRoot, createIvsClient: () => client });
    expect(results.slice(4, 7).map(formatCheck)).toEqual([
      `FAIL  AWS N743AS    AWS refused GetStage on ${first}: the credentials lack that permission (see the IAM policies in docs/deployment.md).`,
      `FAIL  AWS N953AS    GetStage on ${second}: no such resource in this account and region (Stage not found).`,
      `FAIL  AWS N954AS    ${arn('us-east-1', 'N954ASAAAAAA')} is in us-east-1, but AWS_REGION is eu-west-1`,
    ]);
    expect(summary(results)).toBe('doctor: 4 passed, 3 failed, 2 skipped');
  });

  it('names every bad variable and skips what depends on them', async () => {
    const results = await runDoctor({
      env: { STAGE_PROVIDER: 'ivs', RATE_LIMIT_STORE: 'postgres' },
      repoRoot,
    });
    expect(results[0]!.status).toBe('FAIL');
    expect(results[0]!.detail).toContain('AUTH_SECRET: required with STAGE_PROVIDER=ivs');
    expect(results[0]!.detail).toContain('RATE_LIMIT_STORE: "postgres" needs DATABASE_URL');
    expect(results.slice(1).map((result) => result.status)).toEqual([
      'SKIP',
      'SKIP',
      'SKIP',
      'SKIP',
      'SKIP',
    ]);
  });

  it('fails a missing SDK build and web build, and an unreachable database, quickly', async () => {
    const missing = join(tempDir(), 'none');
    const started = Date.now();
    const results = await runDoctor({
      env: {
        DATABASE_URL: `postgresql://tailcam@127.0.0.1:${await closedPort()}/tailcam`,
        LOCAL_STAGE_SDK_FILE: join(missing, 'stage-sdk.js'),
        WEB_DIST_DIR: missing,
      },
      repoRoot,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(results.map(formatCheck)).toEqual([
      'PASS  configuration STAGE_PROVIDER=local, PostgreSQL, RATE_LIMIT_STORE=memory, fit for one instance only (see docs/deployment.md)',
      expect.stringMatching(/^FAIL {2}database {6}PostgreSQL unreachable: .*ECONNREFUSED/),
      `FAIL  stage SDK     ${missing}/stage-sdk.js is missing: run npm run build`,
      `FAIL  web app       ${missing}/index.html is missing: run npm run build`,
      'SKIP  AWS           STAGE_PROVIDER=local: no AWS account involved',
      'SKIP  TURN          TURN_URLS is not set: viewers whose UDP is blocked cannot watch',
      expect.stringMatching(/^(PASS|WARN) {2}stage network the stage announces /),
      'SKIP  public URL    PUBLIC_URL unset: encoders and players are told localhost',
    ]);
  });

  it('fails a TURN server that does not answer, naming the URI (the allocation itself: turn-check.test.ts)', async () => {
    const results = await runDoctor({
      env: {
        TURN_URLS: 'turn:127.0.0.1:9?transport=tcp',
        TURN_SECRET: 'a-doctor-test-turn-secret-of-32-characters',
        LOCAL_STAGE_SDK_FILE: join(tempDir(), 'stage-sdk.js'),
      },
      repoRoot,
    });
    expect(results.map(formatCheck).filter((line) => line.includes('TURN'))).toEqual([
      expect.stringMatching(/^FAIL {2}TURN {10}turn:127\.0\.0\.1:9\?transport=tcp .*ECONNREFUSED/),
    ]);
  });

  it('checks an embedded database no server holds, and leaves one a server holds alone', async () => {
    const dataDir = tempDir();
    await (await openUserStore({ dataDir }, 'test')).close();
    const env = {
      DATA_DIR: dataDir,
      LOCAL_STAGE_SDK_FILE: fakeLocalSdk(),
      WEB_DIST_DIR: fakeWebDist(),
    };
    expect(formatCheck((await runDoctor({ env, repoRoot }))[1]!)).toBe(
      `PASS  database      embedded PGlite in ${dataDir} reachable, all 4 migrations applied`,
    );
    // A running server's lock: another live process (this one's parent stands in for it).
    const lockFile = join(dataDir, LOCK_FILE);
    writeFileSync(lockFile, JSON.stringify({ pid: process.ppid, role: 'server' }));
    expect(formatCheck((await runDoctor({ env, repoRoot }))[1]!)).toBe(
      `PASS  database      embedded PGlite in ${dataDir}, open in the running server (pid ${process.ppid})`,
    );
    rmSync(lockFile);

    writeFileSync(join(dataDir, 'pglite', 'PG_VERSION'), 'garbage\n');
    const broken = (await runDoctor({ env, repoRoot }))[1]!;
    expect(broken.status).toBe('FAIL');
    expect(broken.detail).toContain('cannot be opened');
  });
});

describe.skipIf(testDatabaseUrl === undefined)('npm run doctor against PostgreSQL', () => {
  const schema = useTemporarySchema(testDatabaseUrl!);

  const open = () => openPostgresClient({ connectionString: testDatabaseUrl!, schema, max: 1 });
  const check = async () =>
    (
      await runDoctor({
        env: {
          DATABASE_URL: testDatabaseUrl!,
          RATE_LIMIT_STORE: 'postgres',
          LOCAL_STAGE_SDK_FILE: fakeLocalSdk(),
          WEB_DIST_DIR: fakeWebDist(),
        },
        repoRoot,
        openPostgres: open,
      })
    )[1]!;

  it('says which migrations are pending, then passes once they are applied', async () => {
    expect(formatCheck(await check())).toBe(
      'FAIL  database      PostgreSQL reachable, 4 migration(s) pending (1 users, 2 rate_limits, 3 users_canonical_name_and_token_generation, 4 rate_limit_delays): the server applies them when it starts; run the doctor again afterwards',
    );
    const client = open();
    await migrate(client);
    await client.close();
    expect(formatCheck(await check())).toBe(
      'PASS  database      PostgreSQL reachable, all 4 migrations applied',
    );
  });
});

describe('npm run doctor on the network', () => {
  const interfaces = {
    lo: [
      {
        address: '127.0.0.1',
        netmask: '255.0.0.0',
        family: 'IPv4' as const,
        mac: '00:00:00:00:00:00',
        internal: true,
        cidr: '127.0.0.1/8',
      },
    ],
    eth0: [
      {
        address: '10.0.0.5',
        netmask: '255.255.255.0',
        family: 'IPv4' as const,
        mac: '02:00:00:00:00:01',
        internal: false,
        cidr: '10.0.0.5/24',
      },
    ],
  };
  const lookup = async (name: string) => {
    if (name === 'stage.example.com') return ['203.0.113.7'];
    throw new Error(`getaddrinfo ENOTFOUND ${name}`);
  };
  const line = async (env: Record<string, string>, name: string) => {
    const results = await runDoctor({
      env: {
        DATA_DIR: join(tempDir(), 'data'),
        LOCAL_STAGE_SDK_FILE: fakeLocalSdk(),
        WEB_DIST_DIR: fakeWebDist(),
        ...env,
      },
      repoRoot,
      network: { interfaces, lookup },
    });
    const found = results.find((result) => result.name === name);
    return found && formatCheck(found);
  };

  it('says what the stage announces, which address is on an interface, and its UDP ports', async () => {
    expect(
      await line(
        {
          STAGE_ANNOUNCED_ADDRESSES: 'stage.example.com,10.0.0.5',
          STAGE_UDP_PORTS: '40000-40199',
        },
        'stage network',
      ),
    ).toBe(
      'PASS  stage network the stage announces 203.0.113.7 (stage.example.com, not on an interface of this host: right only behind a 1:1 NAT that maps it here), 10.0.0.5 (on eth0) on UDP 40000-40199 (200 ports, one per peer connection and address)',
    );
  });

  it('says when every peer connection shares one UDP port', async () => {
    expect(
      await line(
        { STAGE_ANNOUNCED_ADDRESSES: '203.0.113.7', STAGE_UDP_PORTS: '40000' },
        'stage network',
      ),
    ).toBe(
      'PASS  stage network the stage announces 203.0.113.7 (not on an interface of this host: right only behind a 1:1 NAT that maps it here), 10.0.0.5 (on eth0) on UDP 40000 (one port for every peer connection)',
    );
  });

  it('warns, naming STAGE_ANNOUNCED_ADDRESSES, when the stage announces only private addresses', async () => {
    expect(await line({}, 'stage network')).toBe(
      'WARN  stage network the stage announces 10.0.0.5 (on eth0) on any UDP port (STAGE_UDP_PORTS unset: no firewall rule can name them); the stage announces only private or loopback addresses (10.0.0.5): peers beyond this network cannot reach it. Behind a 1:1 NAT (a cloud VM), set STAGE_ANNOUNCED_ADDRESSES to the public address or name',
    );
  });

  it('fails a name that does not resolve and a range the stage refuses', async () => {
    expect(await line({ STAGE_ANNOUNCED_ADDRESSES: 'nowhere.example.net' }, 'stage network')).toBe(
      'FAIL  stage network STAGE_ANNOUNCED_ADDRESSES names a host that does not resolve: nowhere.example.net (getaddrinfo ENOTFOUND nowhere.example.net)',
    );
    expect(await line({ STAGE_UDP_PORTS: '80-90' }, 'stage network')).toBe(
      'FAIL  stage network STAGE_UDP_PORTS must be one port (40000: every peer connection shares it) or a range (40000-40099: one port each), from 1024 to 65535 (got "80-90")',
    );
  });

  it('warns when PUBLIC_URL is plain http on an address beyond this machine', async () => {
    expect(await line({ PUBLIC_URL: 'http://192.168.1.20:8080' }, 'public URL')).toBe(
      'WARN  public URL    PUBLIC_URL http://192.168.1.20:8080 is plain http on an address beyond this machine: passwords and participant tokens cross the network readable, and browsers there give the page no secure context. Serve it over https behind a reverse proxy (docs/deployment.md)',
    );
    expect(await line({ PUBLIC_URL: 'http://localhost:8080' }, 'public URL')).toBe(
      'PASS  public URL    http://localhost:8080 is plain http on this machine only',
    );
    expect(await line({ PUBLIC_URL: 'https://tailcam.example' }, 'public URL')).toBe(
      'PASS  public URL    https://tailcam.example is https',
    );
    expect(summary([{ status: 'WARN', name: 'public URL', detail: '' }])).toBe(
      'doctor: 0 passed, 0 failed, 0 skipped, 1 warning',
    );
  });
});
