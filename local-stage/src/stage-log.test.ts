import { describe, expect, it } from 'vitest';
import { createStageLogger, type StageLoggerOptions } from './stage-log';

const time = new Date(2026, 0, 2, 9, 5, 1, 7).getTime();

function capture(options: StageLoggerOptions) {
  const written: string[] = [];
  const log = createStageLogger({
    ...options,
    // One write a record: a JSON line, or pino-pretty's lines (an error's with its stack).
    destination: { write: (text) => written.push(text.replace(/\n$/, '')) },
    now: () => time,
  });
  return { log, written };
}

/** An error with a short stack, as pino records it (`err`). */
const socketClosed = Object.assign(new Error('socket closed'), {
  stack: 'Error: socket closed\n    at Socket.onClose (ws.js:1:1)',
});

function lines(format: 'json' | 'pretty') {
  const { log, written } = capture({ format });
  log.info('listening on http://127.0.0.1:8091');
  log.warn({ err: socketClosed }, 'session error');
  log.error({ err: socketClosed }, 'request failed');
  return written;
}

describe('the stage log', () => {
  it('prints the lines the API prints on a terminal (pino-pretty), an error with its stack', () => {
    const [info, warn, error, ...more] = lines('pretty');
    expect(more).toEqual([]);
    expect(info).toMatch(/^\[09:05:01\.007\] INFO: stage listening on http:\/\/127\.0\.0\.1:8091$/);
    expect(warn).toMatch(/^\[09:05:01\.007\] WARN: stage session error \n/);
    expect(error).toMatch(/^\[09:05:01\.007\] ERROR: stage request failed \n/);
    expect(error).toContain('socket closed');
    expect(error).toContain('at Socket.onClose (ws.js:1:1)');
  });

  it('prints JSON records of the API shape otherwise, an error at level 50', () => {
    const err = { type: 'Error', message: 'socket closed', stack: socketClosed.stack };
    expect(lines('json').map((line) => JSON.parse(line) as unknown)).toEqual([
      { level: 30, time, service: 'tailcam-stage', msg: 'listening on http://127.0.0.1:8091' },
      { level: 40, time, service: 'tailcam-stage', err, msg: 'session error' },
      { level: 50, time, service: 'tailcam-stage', err, msg: 'request failed' },
    ]);
  });

  it('names the camera process, and writes nothing below LOG_LEVEL', () => {
    const { log, written } = capture({ format: 'json', level: 'warn', service: 'tailcam-cameras' });
    log.info('publishing N743AS');
    log.warn('camera link to the stage closed (1006); opening it again');
    expect(written.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        level: 40,
        time,
        service: 'tailcam-cameras',
        msg: 'camera link to the stage closed (1006); opening it again',
      },
    ]);
  });

  it.each(['json', 'pretty'] as const)(
    'never writes a token, a secret or an Authorization header (LOG_FORMAT=%s)',
    (format) => {
      const { log, written } = capture({ format });
      log.info(
        {
          token: 'participant-token-value',
          secret: 'hush',
          session: { token: 'another-token', authorization: 'Bearer abc' },
          req: { headers: { authorization: 'Bearer def' } },
        },
        'joined',
      );
      const text = written.join('\n');
      for (const value of ['participant-token-value', 'hush', 'another-token', 'Bearer']) {
        expect(text).not.toContain(value);
      }
      expect(text).toContain('"token":"[redacted]"');
    },
  );
});
