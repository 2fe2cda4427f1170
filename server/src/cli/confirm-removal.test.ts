import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmRemoval } from './confirm-removal';

/** A terminal's standard input, with `typed` already typed. */
function terminal(typed: string): NodeJS.ReadStream {
  const input = new PassThrough();
  input.end(typed);
  return Object.assign(input, { isTTY: true }) as unknown as NodeJS.ReadStream;
}

describe('confirming a removal', () => {
  const output = () => new PassThrough();

  it('on a terminal, goes ahead when the name is typed again, in any case', async () => {
    expect(
      await confirmRemoval('Alice', { yes: false, input: terminal('aLICE\n'), output: output() }),
    ).toBe('confirmed');
  });

  it('on a terminal, keeps the account when another name is typed', async () => {
    for (const typed of ['alicia\n', '\n', 'al\u0130ce\n']) {
      expect(
        await confirmRemoval('alice', { yes: false, input: terminal(typed), output: output() }),
      ).toBe('declined');
    }
  });

  it('off a terminal, asks for --yes and reads nothing', async () => {
    const input = new PassThrough() as unknown as NodeJS.ReadStream;
    expect(await confirmRemoval('alice', { yes: false, input, output: output() })).toBe(
      'needs-yes',
    );
    expect(await confirmRemoval('alice', { yes: true, input, output: output() })).toBe('confirmed');
  });
});
