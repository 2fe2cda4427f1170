/**
 * Test wiring: `build()` gives each test a freshly wired app (closed when the test finishes) over
 * an in-memory PGlite store. PGlite takes seconds to boot, so one instance serves a whole test
 * file and is emptied for every app.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, inject, onTestFinished } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppConfig, type AppDeps } from '../app';
import { parseConfig } from '../config';
import { createAccounts } from '../accounts/accounts';
import { migrate } from '../db/migrations';
import { openPgliteClient } from '../db/pglite-client';
import type { SqlClient } from '../db/sql-client';
import { createUserStore, type User, type UserStore } from '../db/user-store';
import { findRepoRoot, ivsSdkFile } from '../paths';
import { createLocalStageProvider } from '../providers/local-provider';

export const repoRoot = findRepoRoot();
export const authSecret = new TextEncoder().encode('test-auth-secret-that-is-long-enough-0123');
export const stageTokenSecret = new TextEncoder().encode(
  'test-stage-secret-that-is-long-enough-01',
);
export const CLIENT_ID = '6f1c3a52-6f0e-4a63-9d8b-7d7c4c7f8a11';

let sharedClient: Promise<SqlClient> | undefined;

afterAll(async () => {
  if (sharedClient !== undefined) await (await sharedClient).close();
  sharedClient = undefined;
});

/** The file's shared in-memory store, migrated and emptied. */
export async function freshStore(): Promise<UserStore> {
  sharedClient ??= openPgliteClient(undefined, {
    loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]),
  }).then(async (client) => {
    await migrate(client);
    return client;
  });
  const client = await sharedClient;
  await client.query('DELETE FROM users');
  // The app never closes the shared instance; afterAll does.
  return { ...createUserStore(client), close: async () => {} };
}

const tempDirs: string[] = [];

afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory, deleted when the test file ends. */
export function tempDir(prefix = 'tailcam-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** A built web app: index.html, a hashed asset and a favicon. */
export function fakeWebDist(): string {
  const dir = tempDir('tailcam-web-');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tailcam</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

export function fakeLocalSdk(): string {
  const file = join(tempDir('tailcam-sdk-'), 'stage-sdk.js');
  writeFileSync(file, 'window.IVSBroadcastClient = {};');
  writeFileSync(join(dirname(file), 'in-band-worker.js'), 'self.onrtctransform = null;');
  return file;
}

/** The limits an empty environment gives: tests of the defaults test the real ones. */
const defaults = parseConfig({}, repoRoot);

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    repoRoot,
    stageProvider: 'local',
    ivs: {
      region: undefined,
      stageArns: {},
      sdkUrl: undefined,
      sdkFile: ivsSdkFile(repoRoot),
    },
    loginTokenHours: 12,
    localStage: {
      url: 'http://127.0.0.1:1',
      sdkFile: fakeLocalSdk(),
      tokenSecret: undefined,
    },
    stageProxy: defaults.stageProxy,
    webDistDir: fakeWebDist(),
    corsOrigins: [],
    trustProxy: false,
    publicUrl: undefined,
    loginLimits: defaults.loginLimits,
    tokenRateLimitPerMinute: defaults.tokenRateLimitPerMinute,
    thumbnailRateLimitPerMinute: defaults.thumbnailRateLimitPerMinute,
    recordingLimits: defaults.recordingLimits,
    whipRateLimitPerMinute: defaults.whipRateLimitPerMinute,
    whepRateLimitPerMinute: defaults.whepRateLimitPerMinute,
    trickleRateLimitPerMinute: defaults.trickleRateLimitPerMinute,
    requestTimeoutMs: defaults.requestTimeoutMs,
    ...overrides,
  };
}

export interface TestApp {
  app: FastifyInstance;
  store: UserStore;
  config: AppConfig;
  addUser(username: string, password: string): Promise<User>;
  login(username: string, password: string): Promise<string>;
}

export async function build(
  options: { config?: Partial<AppConfig>; deps?: Partial<AppDeps> } = {},
): Promise<TestApp> {
  const config = testConfig(options.config);
  const store = options.deps?.store ?? (await freshStore());
  const app = await buildApp(config, {
    store,
    authSecret,
    stageProvider: createLocalStageProvider({
      secret: stageTokenSecret,
      ttlMinutes: 60,
      publicUrl: config.publicUrl,
      stageUrl: config.localStage.url,
    }),
    ...options.deps,
  });
  onTestFinished(() => app.close());
  await app.ready();
  return {
    app,
    store,
    config,
    async addUser(username, password) {
      await createAccounts(store).add(username, password);
      const user = await store.findByUsername(username);
      if (user === undefined) throw new Error('user was not created');
      return user;
    },
    async login(username, password) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { username, password },
      });
      if (response.statusCode !== 200) throw new Error(`login failed: ${response.body}`);
      return (response.json() as { token: string }).token;
    },
  };
}

/**
 * Bearer values a signed-in route refuses with a 401 before anything else, each with the error it
 * answers: none, one that is no JWT, and `token` with its signature spoilt.
 */
export function refusedBearers(token: string) {
  return [
    [undefined, 'Missing bearer token'],
    ['not a token!', 'Malformed Authorization header'],
    [`${token}x`, 'Invalid or expired token'],
  ] as const;
}
