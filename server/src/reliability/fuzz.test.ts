/**
 * Property-based fuzzing of the two JSON endpoints through `inject`: random methods, bodies,
 * content types, encodings, sizes and headers. Whatever arrives, the API never answers a 5xx,
 * never crashes, and every 4xx is a JSON `{error}` and nothing else. Password checks use a fast
 * stand-in verifier (argon2 is not what is being fuzzed; reliability/token-attacks.test.ts covers
 * the real one), so thousands of cases fit in a few seconds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { PasswordVerifier } from '../auth/passwords';
import { build, CLIENT_ID } from '../test/helpers';

/** Cases per property; each property also stops after its time budget, whichever comes first. */
const RUNS = 2_500;
const TIME_BUDGET_MS = 5_000;

const KNOWN_PASSWORD = 'correct horse battery staple';
/** Accepts the one known password without argon2: the fuzzed paths are parsing and routing. */
const fastPasswords: PasswordVerifier = {
  verify: async (passwordHash, password) =>
    passwordHash !== undefined && password === KNOWN_PASSWORD,
};

const contentTypes = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 6 },
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'APPLICATION/JSON',
    'application/json;;',
    'application/vnd.api+json',
    'application/problem+json',
    'text/plain',
    'text/html',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/octet-stream',
    '',
    ' ',
    '*/*',
    'application/json, text/plain',
  ),
  fc.string({ maxLength: 80 }),
);

/** Text that looks like what a client sends, and text that does not. */
const fieldValue = fc.oneof(
  fc.constantFrom('alice', 'ALICE', KNOWN_PASSWORD, 'N743AS', 'N953AS', CLIENT_ID, ''),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 250, maxLength: 1_100 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

const fieldName = fc.oneof(
  fc.constantFrom(
    'username',
    'password',
    'stageId',
    'clientId',
    '__proto__',
    'constructor',
    'prototype',
  ),
  fc.string({ maxLength: 12 }),
);

const jsonObjectBody = fc
  .dictionary(fieldName, fieldValue, { maxKeys: 5 })
  .map((object) => JSON.stringify(object));

const deepNesting = fc
  .integer({ min: 1, max: 20_000 })
  .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);

/** Both fields present, each of any type: reaches validation, the rate limits and the store. */
const credentialsBody = fc
  .record(
    { username: fieldValue, password: fieldValue, stageId: fieldValue, clientId: fieldValue },
    { requiredKeys: [] },
  )
  .map((object) => JSON.stringify(object));

const body: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  { arbitrary: credentialsBody, weight: 4 },
  jsonObjectBody,
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.json({ maxDepth: 3 }).map((text) => text.slice(0, Math.max(0, text.length - 1))),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)),
  // Around and well over the 4 KiB body limit.
  fc
    .integer({ min: 3_900, max: 40_000 })
    .map((size) => JSON.stringify({ username: 'a'.repeat(size), password: 'x' })),
  deepNesting,
  fc.constantFrom(
    '{"__proto__":{"isAdmin":true},"username":"alice","password":"x"}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"username":"alice","username":"bob","password":"x"}',
    '{"username":"\\ud800","password":"\\udfff"}',
    '\ufeff{"username":"alice","password":"x"}',
    'null',
    'true',
    '1e999999',
    '[]',
    '""',
  ),
  fc.constant(undefined),
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom('', ' ', 'x'.repeat(2000)),
);

const bearer = fc.oneof(
  fc.constant(undefined),
  headerValue,
  fc.string({ maxLength: 300 }).map((text) => `Bearer ${text}`),
  fc
    .tuple(fc.base64String({ maxLength: 60 }), fc.base64String({ maxLength: 60 }))
    .map(([head, payload]) => `Bearer ${head}.${payload}.sig`),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'bearer x.y.z',
    'Basic YWxpY2U6eA==',
    `Bearer ${'a'.repeat(5000)}`,
  ),
);

const extraHeaders = fc.record(
  {
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown'),
    'transfer-encoding': fc.constantFrom('chunked', 'gzip'),
    'x-forwarded-for': fc.oneof(fc.ipV4(), headerValue),
    host: fc.oneof(fc.domain(), headerValue),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
    origin: fc.oneof(fc.webUrl(), headerValue),
    'content-length': fc.oneof(fc.nat({ max: 100_000 }).map(String), headerValue),
  },
  { requiredKeys: [] },
);

const method = fc.oneof(
  { arbitrary: fc.constant('POST' as const), weight: 6 },
  {
    arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD' as const),
    weight: 1,
  },
);

const query = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 30 }).map((text) => `?${encodeURIComponent(text)}`),
  fc.constantFrom('?username=alice', '?__proto__[x]=1', '?a=%ZZ'),
);

interface Attempt {
  method: 'POST' | 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
  query: string;
  contentType: string | undefined;
  body: string | Buffer | undefined;
  authorization: string | undefined;
  headers: Partial<Record<string, string>>;
  remoteAddress: string;
}

const attempt: fc.Arbitrary<Attempt> = fc.record({
  method,
  query,
  contentType: fc.option(contentTypes, { nil: undefined }),
  body,
  authorization: bearer,
  headers: fc.oneof({ arbitrary: fc.constant({}), weight: 2 }, extraHeaders),
  remoteAddress: fc.ipV4(),
});

function checkAnswer(response: LightMyRequestResponse, request: Attempt): void {
  const context = `${request.method} → ${response.statusCode} ${response.body.slice(0, 200)}`;
  expect(response.statusCode, context).toBeLessThan(500);
  if (response.statusCode >= 400) {
    expect(String(response.headers['content-type']), context).toMatch(/^application\/json\b/);
    if (request.method === 'HEAD') return;
    const parsed: unknown = JSON.parse(response.body);
    expect(parsed, context).toEqual({ error: expect.any(String) });
    expect((parsed as { error: string }).error.length, context).toBeGreaterThan(0);
  } else if (request.method !== 'HEAD' && request.method !== 'OPTIONS') {
    expect(response.statusCode, context).toBe(200);
    expect(JSON.parse(response.body), context).toEqual({ token: expect.any(String) });
  }
}

async function send(
  app: Awaited<ReturnType<typeof build>>['app'],
  url: string,
  request: Attempt,
  authorization: string | undefined,
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = value;
  }
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  if (authorization !== undefined) headers.authorization = authorization;
  return app.inject({
    method: request.method,
    url: `${url}${request.query}`,
    headers,
    remoteAddress: request.remoteAddress,
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
}

describe('fuzzing the JSON API', () => {
  it(`POST /api/login: up to ${RUNS} random requests, never a 5xx, every 4xx a JSON {error}`, async () => {
    const { app, addUser } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', KNOWN_PASSWORD);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(attempt, async (request) => {
        const response = await send(app, '/api/login', request, request.authorization);
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        checkAnswer(response, request);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_BUDGET_MS, markInterruptAsFailure: false },
    );
    if (process.env.FUZZ_REPORT) console.info('login statuses', Object.fromEntries(statuses));
    // The fuzzer reached the refusals that matter, not only one kind of 400.
    for (const status of [400, 404, 413, 415]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    // A well-formed sign-in still works after the storm (alice's own window may be full: the
    // fuzzer uses her name too, so another account signs in).
    await addUser('carol', KNOWN_PASSWORD);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/api/login',
          payload: { username: 'carol', password: KNOWN_PASSWORD },
          remoteAddress: '10.9.9.9',
        })
      ).statusCode,
    ).toBe(200);
  });

  it(`POST /api/token: up to ${RUNS} random requests, signed in or not, never a 5xx`, async () => {
    const { app, addUser, login } = await build({ deps: { passwords: fastPasswords } });
    await addUser('alice', KNOWN_PASSWORD);
    const loginToken = await login('alice', KNOWN_PASSWORD);
    const statuses = new Map<number, number>();
    const withRealToken = fc.boolean();
    await fc.assert(
      fc.asyncProperty(attempt, withRealToken, async (request, signedIn) => {
        const authorization = signedIn ? `Bearer ${loginToken}` : request.authorization;
        const response = await send(app, '/api/token', request, authorization);
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        checkAnswer(response, request);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_BUDGET_MS, markInterruptAsFailure: false },
    );
    if (process.env.FUZZ_REPORT) console.info('token statuses', Object.fromEntries(statuses));
    for (const status of [400, 401, 404]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
  });

  it('random but well-formed token requests: 200 with a token, or 404 naming the stream', async () => {
    // One account asks many times here; the per-user limit has its own test (token-attacks).
    const { app, addUser, login } = await build({
      config: { tokenRateLimitPerMinute: 1_000_000 },
      deps: { passwords: fastPasswords },
    });
    await addUser('alice', KNOWN_PASSWORD);
    const loginToken = await login('alice', KNOWN_PASSWORD);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom('N743AS', 'N953AS', 'N954AS'),
          fc.string({ minLength: 1, maxLength: 64 }),
        ),
        fc.uuid(),
        async (stageId, clientId) => {
          const response = await app.inject({
            method: 'POST',
            url: '/api/token',
            headers: { authorization: `Bearer ${loginToken}` },
            payload: { stageId, clientId },
          });
          if (['N743AS', 'N953AS', 'N954AS'].includes(stageId)) {
            expect(response.statusCode).toBe(200);
          } else if (stageId.includes('\u0000')) {
            expect(response.statusCode).toBe(400);
          } else {
            expect(response.statusCode).toBe(404);
            expect(response.json()).toEqual({ error: `Unknown stream: ${stageId}` });
          }
        },
      ),
      { numRuns: 500, interruptAfterTimeLimit: 2_000, markInterruptAsFailure: false },
    );
  });
});
