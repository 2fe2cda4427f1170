import { describe, expect, it } from 'vitest';
import { createStageLog } from './stage-log';

const time = new Date(2026, 0, 2, 9, 5, 1, 7).getTime();

function lines(format: 'json' | 'pretty') {
  const written: string[] = [];
  const log = createStageLog(
    format,
    (line) => written.push(line),
    () => time,
  );
  log('listening on http://127.0.0.1:8091');
  log('session error', new Error('socket closed'));
  return written;
}

describe('the stage log', () => {
  it('prints the lines the API prints on a terminal', () => {
    expect(lines('pretty')).toEqual([
      '09:05:01.007 INFO  stage listening on http://127.0.0.1:8091',
      '09:05:01.007 WARN  stage session error: socket closed',
    ]);
  });

  it('prints JSON records of the API shape otherwise', () => {
    expect(lines('json').map((line) => JSON.parse(line) as unknown)).toEqual([
      { level: 30, time, service: 'tailcam-stage', msg: 'listening on http://127.0.0.1:8091' },
      { level: 40, time, service: 'tailcam-stage', msg: 'session error: socket closed' },
    ]);
  });
});
