import { describe, expect, it } from 'vitest';
import { stringField } from './parse-json';

describe('stringField', () => {
  it.each<[unknown, string | undefined]>([
    [{ token: 'abc' }, 'abc'],
    [{ token: '' }, undefined],
    [{ token: '   ' }, undefined],
    [{ token: 42 }, undefined],
    [{ token: null }, undefined],
    [['abc'], undefined],
    ['abc', undefined],
    [null, undefined],
    [undefined, undefined],
    [{}, undefined],
  ])('reads the token field of %j as %j', (body, expected) => {
    expect(stringField(body, 'token')).toBe(expected);
  });
});
