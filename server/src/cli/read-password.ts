/**
 * Reads a password without it ever touching argv: from standard input when that is not a
 * terminal (scripts: `printf 'secret\n' | npm run users -- add alice`), else from a prompt that
 * does not echo.
 */
import type { ReadStream } from 'node:tty';

export async function readPasswordFromPipe(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) text += typeof chunk === 'string' ? chunk : chunk.toString();
  // The first line is the password; a trailing newline (from echo or printf) is not part of it.
  return text.split(/\r?\n/, 1)[0] ?? '';
}

export function promptHidden(
  prompt: string,
  input: ReadStream,
  output: NodeJS.WritableStream,
): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(prompt);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    let value = '';
    const finish = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Error('Cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    input.on('data', onData);
  });
}

/** Asks twice on a terminal so a typo does not set an unknown password. */
export async function readNewPassword(
  username: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  if (!input.isTTY) return readPasswordFromPipe(input);
  const tty = input as ReadStream;
  const first = await promptHidden(`Password for ${username}: `, tty, output);
  const second = await promptHidden('Repeat the password: ', tty, output);
  if (first !== second) throw new Error('The two passwords differ; nothing was changed');
  return first;
}
