import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkTurnVariables,
  iceServerLinks,
  turnIceServers,
  turnRestCredential,
  turnSettings,
  turnUriProblem,
  turnVariables,
} from './turn';

const SECRET = 'a-turn-secret-of-at-least-32-characters';

describe('TURN REST credentials', () => {
  it('are the username and HMAC-SHA1 coturn computes (vector from openssl dgst -sha1 -hmac)', () => {
    // printf '%s' '1767229200:user-1' | openssl dgst -sha1 -hmac "$SECRET" -binary | base64
    expect(turnRestCredential(SECRET, 'user-1', 1_767_229_200)).toEqual({
      username: '1767229200:user-1',
      credential: 'yUjuyJQQkPMWbjasKAyGxhCJ5oU=',
    });
  });

  it('expire the configured minutes after they are made, for every configured URL', () => {
    const servers = turnIceServers(
      {
        urls: ['turn:turn.example:3478?transport=tcp', 'turns:turn.example:5349?transport=tcp'],
        secret: SECRET,
        credentialMinutes: 60,
      },
      'user-1',
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(servers).toEqual([
      {
        urls: ['turn:turn.example:3478?transport=tcp', 'turns:turn.example:5349?transport=tcp'],
        username: '1767229200:user-1',
        credential: 'yUjuyJQQkPMWbjasKAyGxhCJ5oU=',
      },
    ]);
  });
});

describe('ice-server Link headers (RFC 9725 §4.6)', () => {
  it('give one Link per URL with the username, credential and credential type', () => {
    expect(
      iceServerLinks([
        {
          urls: ['turn:turn.example:3478?transport=udp', 'turns:turn.example:5349?transport=tcp'],
          username: '1767229200:user-1',
          credential: 'yUjuyJQQkPMWbjasKAyGxhCJ5oU=',
        },
      ]),
    ).toEqual([
      '<turn:turn.example:3478?transport=udp>; rel="ice-server"; username="1767229200:user-1"; credential="yUjuyJQQkPMWbjasKAyGxhCJ5oU="; credential-type="password"',
      '<turns:turn.example:5349?transport=tcp>; rel="ice-server"; username="1767229200:user-1"; credential="yUjuyJQQkPMWbjasKAyGxhCJ5oU="; credential-type="password"',
    ]);
  });

  it('escape a quote or a backslash in a parameter as RFC 8288 quoted-strings do', () => {
    const [link] = iceServerLinks([
      { urls: ['turn:t.example'], username: 'a"b\\c', credential: 'x' },
    ]);
    expect(link).toContain('username="a\\"b\\\\c"');
  });

  it('are none without ICE servers', () => {
    expect(iceServerLinks([])).toEqual([]);
  });
});

describe('TURN URIs', () => {
  it.each([
    'turn:turn.example',
    'turn:turn.example:3478?transport=udp',
    'turn:198.18.0.1:3478?transport=tcp',
    'turns:turn.example:5349?transport=tcp',
    'turn:[2001:2::1]:3478',
  ])('accepts %s', (uri) => {
    expect(turnUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['stun:stun.example:3478', /not a TURN URI/],
    ['https://turn.example', /not a TURN URI/],
    ['turn:turn.example:3478?transport=sctp', /not a TURN URI/],
    ['turn:turn.example:70000', /port must be from 1 to 65535/],
    ['turns:turn.example:5349?transport=udp', /runs over TCP/],
  ])('refuses %s', (uri, message) => {
    expect(turnUriProblem(uri)).toMatch(message);
  });
});

describe('TURN variables', () => {
  const schema = z
    .object(turnVariables)
    .superRefine((env, ctx) => {
      const failed = new Set(ctx.issues.map((issue) => issue.path?.[0]));
      checkTurnVariables(
        env,
        (name) => !failed.has(name),
        (name, message) => ctx.addIssue({ code: 'custom', path: [name], message }),
      );
    })
    .transform(turnSettings);
  const problems = (env: Record<string, string>) =>
    schema.safeParse(env).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

  it('are optional: no TURN without them', () => {
    expect(schema.parse({})).toBeUndefined();
    expect(schema.parse({ TURN_URLS: ' ', TURN_SECRET: '' })).toBeUndefined();
  });

  it('give the URLs, the secret and 120 minutes by default', () => {
    expect(
      schema.parse({
        TURN_URLS: 'turn:a.example?transport=tcp, turns:a.example',
        TURN_SECRET: SECRET,
      }),
    ).toEqual({
      urls: ['turn:a.example?transport=tcp', 'turns:a.example'],
      secret: SECRET,
      credentialMinutes: 120,
    });
  });

  it('name what is wrong, without the secret', () => {
    expect(problems({ TURN_URLS: 'turn:a.example', TURN_SECRET: 'short-secret' })).toEqual([
      expect.stringMatching(/^TURN_SECRET: must be at least 32 characters/),
    ]);
    expect(problems({ TURN_URLS: 'turn:a.example' })).toEqual([
      "TURN_SECRET: required with TURN_URLS (coturn's static-auth-secret)",
    ]);
    expect(problems({ TURN_SECRET: SECRET })).toEqual([
      expect.stringMatching(/^TURN_URLS: required with TURN_SECRET/),
    ]);
    expect(
      problems({ TURN_URLS: 'turn:a.example', TURN_SECRET: SECRET, TURN_CREDENTIAL_MINUTES: '0' }),
    ).toEqual(['TURN_CREDENTIAL_MINUTES: must be at least 1']);
    expect(
      problems({ TURN_URLS: Array(9).fill('turn:a.example').join(','), TURN_SECRET: SECRET }),
    ).toEqual(['TURN_URLS: at most 8 URIs']);
    expect(problems({ TURN_URLS: 'stun:a.example', TURN_SECRET: SECRET })).toEqual([
      expect.stringMatching(/^TURN_URLS: "stun:a.example" is not a TURN URI/),
    ]);
    expect(
      JSON.stringify(problems({ TURN_SECRET: `${SECRET}-and-more`, TURN_URLS: 'x' })),
    ).not.toContain(SECRET);
  });
});
