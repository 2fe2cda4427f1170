import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './webhook-signature';

const secret = new TextEncoder().encode('test-webhook-secret-that-is-32-chars-long');
const body = '{"id":"e1"}';
const timestamp = 1_764_428_400;

describe('webhook signature', () => {
  it('is the HMAC-SHA256 of "{timestamp}.{body}" in hex, as openssl computes it', () => {
    // printf '%s' '1764428400.{"id":"e1"}' | openssl dgst -sha256 -hmac '<secret>'
    expect(signWebhook(secret, timestamp, body)).toBe(
      'v1=b322d2a071e4e39494a3feb4406f663ee0f06ddc9c40678bab22e327966f77c9',
    );
  });

  it('verifies a delivery, and refuses another body, another secret, a stale or missing timestamp', () => {
    const signature = signWebhook(secret, timestamp, body);
    const check = (changes: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({
        secret,
        body,
        timestamp: String(timestamp),
        signature,
        nowSeconds: timestamp + 10,
        ...changes,
      });
    expect(check({})).toBe(true);
    expect(check({ body: '{"id":"e2"}' })).toBe(false);
    expect(
      check({ secret: new TextEncoder().encode('another-secret-that-is-32-chars-long!!') }),
    ).toBe(false);
    expect(check({ nowSeconds: timestamp + 301 })).toBe(false);
    expect(check({ timestamp: undefined })).toBe(false);
    expect(check({ timestamp: '1764428400.5' })).toBe(false);
    expect(check({ signature: 'v1=00' })).toBe(false);
  });
});
