import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressedForms } from './compressed-forms';

describe('compressedForms', () => {
  it('makes a brotli and a gzip form that each give the file back, smaller than it', async () => {
    const body = Buffer.from(`const app = ${JSON.stringify('a line of the app '.repeat(400))};`);
    const forms = await compressedForms(body);
    expect(brotliDecompressSync(forms.br).equals(body)).toBe(true);
    expect(gunzipSync(forms.gzip).equals(body)).toBe(true);
    expect(forms.br.length).toBeLessThan(body.length / 4);
    expect(forms.gzip.length).toBeLessThan(body.length / 4);
  });
});
