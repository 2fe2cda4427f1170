import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { exitOnShutdown } from './process-shutdown';
import { createStageLogger } from './stage-log';

let fakeProcess: EventEmitter & { exit: Mock<(code: number) => void> };
let lines: string[];

beforeEach(() => {
  vi.useFakeTimers();
  fakeProcess = Object.assign(new EventEmitter(), { exit: vi.fn<(code: number) => void>() });
  lines = [];
});

afterEach(() => {
  vi.useRealTimers();
});

function shutdownWith(close: () => Promise<void>) {
  exitOnShutdown({
    close,
    log: createStageLogger({
      format: 'json',
      destination: { write: (line) => lines.push(line) },
    }),
    graceMs: 3_000,
    process: fakeProcess,
  });
}

const messages = () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);

describe('the stage processes stopping', () => {
  it('close once on SIGTERM, however many signals follow, and exit 0', async () => {
    const close = vi.fn(() => Promise.resolve());
    shutdownWith(close);
    fakeProcess.emit('SIGTERM');
    fakeProcess.emit('SIGINT');
    fakeProcess.emit('disconnect');
    await vi.waitFor(() => expect(fakeProcess.exit).toHaveBeenCalledWith(0));
    expect(close).toHaveBeenCalledTimes(1);
    expect(messages()).toEqual(['SIGTERM: stopping']);
  });

  it('stop when the parent is gone, and exit 1 when the close fails', async () => {
    shutdownWith(() => Promise.reject(new Error('server would not close')));
    fakeProcess.emit('disconnect');
    await vi.waitFor(() => expect(fakeProcess.exit).toHaveBeenCalledWith(1));
    expect(messages()).toEqual(['parent gone: stopping']);
  });

  it('exit 0 after the grace when the close never ends', () => {
    shutdownWith(() => new Promise<void>(() => undefined));
    fakeProcess.emit('SIGINT');
    vi.advanceTimersByTime(2_999);
    expect(fakeProcess.exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fakeProcess.exit).toHaveBeenCalledWith(0);
  });

  it('do nothing until a signal comes', () => {
    const close = vi.fn(() => Promise.resolve());
    shutdownWith(close);
    vi.advanceTimersByTime(60_000);
    expect(close).not.toHaveBeenCalled();
    expect(fakeProcess.exit).not.toHaveBeenCalled();
  });
});
