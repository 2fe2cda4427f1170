import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionWatch } from './connection-watch';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

function watch() {
  const events: string[] = [];
  const connection = new ConnectionWatch({
    graceMs: 3_000,
    connected: () => events.push('connected'),
    failed: (state) => events.push(`failed:${state}`),
    lost: () => events.push('lost'),
    disconnected: () => events.push('disconnected'),
  });
  return { connection, events };
}

describe('a peer connection watched by the stage', () => {
  it('ends a connection still disconnected after the grace as lost, once', () => {
    const { connection, events } = watch();
    connection.stateChanged('connected');
    connection.stateChanged('disconnected');
    connection.stateChanged('disconnected');
    vi.advanceTimersByTime(2_999);
    expect(events).toEqual(['connected', 'disconnected']);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['connected', 'disconnected', 'lost']);
  });

  it('keeps a connection that comes back within the grace', () => {
    const { connection, events } = watch();
    connection.stateChanged('disconnected');
    vi.advanceTimersByTime(2_000);
    connection.stateChanged('connected');
    vi.advanceTimersByTime(10_000);
    expect(events).toEqual(['disconnected', 'connected']);
  });

  it('ends a failed or closed connection at once, and a stopped watch never reports lost', () => {
    const { connection, events } = watch();
    connection.stateChanged('failed');
    connection.stateChanged('closed');
    connection.stateChanged('disconnected');
    connection.stop();
    vi.advanceTimersByTime(10_000);
    expect(events).toEqual(['failed:failed', 'failed:closed', 'disconnected']);
  });
});
