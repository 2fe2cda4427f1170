import { describe, expect, it } from 'vitest';
import { defaultLogFormat, formatJsonLogLine, formatLogLine } from './log-line';

const time = new Date(2026, 0, 2, 14, 3, 7, 45).getTime();

describe('log lines on a terminal', () => {
  it('show time, level, service and message, then the fields as key=value', () => {
    expect(
      formatLogLine({
        level: 40,
        time,
        service: 'tailcam-stage',
        pid: 1,
        msg: 'camera feed N743AS closed; reconnecting',
        streamId: 'N743AS',
        attempt: 2,
        reason: 'peer went away',
      }),
    ).toBe(
      '14:03:07.045 WARN  stage camera feed N743AS closed; reconnecting streamId=N743AS attempt=2 reason="peer went away"',
    );
  });

  it('show a request as method, path, status and time', () => {
    expect(
      formatLogLine({
        level: 30,
        time,
        service: 'tailcam-api',
        reqId: 'c0ffee',
        msg: 'request completed',
        req: { method: 'POST', url: '/api/login', remoteAddress: '127.0.0.1' },
        res: { statusCode: 401 },
        responseTime: 12.6,
      }),
    ).toBe('14:03:07.045 INFO  api   request completed POST /api/login 401 13 ms');
  });

  it("show an error's message, and its stack on the lines below", () => {
    const err = {
      type: 'Error',
      message: 'boom',
      stack: 'Error: boom\n    at a (x.js:1)\n    at b',
    };
    expect(formatLogLine({ level: 50, time, service: 'tailcam-api', msg: 'failed', err })).toBe(
      '14:03:07.045 ERROR api   failed err=boom\n    at a (x.js:1)\n    at b',
    );
  });

  it('print a line that is not JSON as it is', () => {
    expect(formatJsonLogLine('not json\n')).toBe('not json');
    expect(formatJsonLogLine(JSON.stringify({ level: 30, time, msg: 'hi' }))).toBe(
      '14:03:07.045 INFO        hi',
    );
  });

  it('are the default on a terminal only', () => {
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
    expect(defaultLogFormat(undefined)).toBe('json');
  });
});
