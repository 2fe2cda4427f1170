import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config';
import { repoRoot } from '../test/helpers';

function problems(env: Record<string, string>): string {
  try {
    parseConfig(env, repoRoot);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('the events configuration', () => {
  it('sends no webhook, and waits 10 s before off air, by default', () => {
    expect(parseConfig({}, repoRoot).events).toEqual({
      webhookUrls: [],
      webhookSecret: undefined,
      queueMax: 10_000,
      offAirGraceSeconds: 10,
    });
  });

  it('takes a list of http(s) URLs, each once', () => {
    expect(
      parseConfig(
        {
          EVENT_WEBHOOK_URLS:
            'https://ops.example/hook?token=abc, http://127.0.0.1:9000/x,https://ops.example/hook?token=abc',
        },
        repoRoot,
      ).events.webhookUrls,
    ).toEqual(['https://ops.example/hook?token=abc', 'http://127.0.0.1:9000/x']);
  });

  it("refuses a URL that is not one, or has a password, without repeating it (it may hold a consumer's token)", () => {
    const message = problems({
      EVENT_WEBHOOK_URLS: 'ftp://ops.example/a-secret-path,https://user:hunter2@ops.example/',
    });
    expect(message).toContain('EVENT_WEBHOOK_URLS: item 1 is not an http(s) URL');
    expect(message).toContain('EVENT_WEBHOOK_URLS: item 2 carries a user name or password');
    expect(message).not.toContain('a-secret-path');
    expect(message).not.toContain('hunter2');
  });

  it('refuses a short secret, a grace out of range, and webhooks with IVS', () => {
    expect(problems({ EVENT_WEBHOOK_SECRET: 'short' })).toContain(
      'EVENT_WEBHOOK_SECRET: must be at least 32 characters long',
    );
    expect(problems({ OFF_AIR_GRACE_SECONDS: '0' })).toContain(
      'OFF_AIR_GRACE_SECONDS: must be at least 1',
    );
    expect(
      problems({
        STAGE_PROVIDER: 'ivs',
        AUTH_SECRET: 'x'.repeat(40),
        AWS_REGION: 'us-east-1',
        EVENT_WEBHOOK_URLS: 'https://ops.example/hook',
      }),
    ).toContain('EVENT_WEBHOOK_URLS: unused with STAGE_PROVIDER=ivs');
  });
});
