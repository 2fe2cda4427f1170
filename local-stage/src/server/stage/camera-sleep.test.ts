/** The cameras' sleep rule on a fake clock: asleep after the idle spell, awake at any sign of a viewer. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CameraSleep } from './camera-sleep';

const SLEEP_AFTER_MS = 60_000;

function sleepRule(sleepAfterMs = SLEEP_AFTER_MS) {
  const changes: boolean[] = [];
  const rule = new CameraSleep({ sleepAfterMs, onChange: (asleep) => changes.push(asleep) });
  return { rule, changes };
}

describe('CameraSleep', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sleeps once nobody has watched for the whole spell, from start-up', () => {
    const { rule, changes } = sleepRule();
    vi.advanceTimersByTime(SLEEP_AFTER_MS - 1);
    expect(rule.asleep).toBe(false);
    vi.advanceTimersByTime(1);
    expect(rule.asleep).toBe(true);
    expect(changes).toEqual([true]);
  });

  it('stays awake while anyone watches, and counts the spell from the last one leaving', () => {
    const { rule, changes } = sleepRule();
    rule.setWatchers(1);
    vi.advanceTimersByTime(10 * SLEEP_AFTER_MS);
    expect(rule.asleep).toBe(false);
    rule.setWatchers(0);
    vi.advanceTimersByTime(SLEEP_AFTER_MS - 1);
    expect(rule.asleep).toBe(false);
    vi.advanceTimersByTime(1);
    expect(changes).toEqual([true]);
  });

  it('a viewer wakes sleeping cameras at once; they sleep again a spell after it leaves', () => {
    const { rule, changes } = sleepRule();
    vi.advanceTimersByTime(SLEEP_AFTER_MS);
    rule.setWatchers(1);
    expect(rule.asleep).toBe(false);
    rule.setWatchers(2);
    rule.setWatchers(0);
    vi.advanceTimersByTime(SLEEP_AFTER_MS);
    expect(changes).toEqual([true, false, true]);
  });

  it('a presence call wakes them and starts the idle spell over', () => {
    const { rule, changes } = sleepRule();
    vi.advanceTimersByTime(SLEEP_AFTER_MS);
    rule.wake();
    expect(rule.asleep).toBe(false);
    vi.advanceTimersByTime(SLEEP_AFTER_MS / 2);
    // Awake: a call keeps them so for another whole spell.
    rule.wake();
    vi.advanceTimersByTime(SLEEP_AFTER_MS - 1);
    expect(rule.asleep).toBe(false);
    vi.advanceTimersByTime(1);
    expect(changes).toEqual([true, false, true]);
  });

  it('a presence call while someone watches does not put them to sleep later', () => {
    const { rule } = sleepRule();
    rule.setWatchers(1);
    rule.wake();
    vi.advanceTimersByTime(2 * SLEEP_AFTER_MS);
    expect(rule.asleep).toBe(false);
  });

  it('sleeps at once when told to (fault injection), but not while anyone watches', () => {
    const { rule, changes } = sleepRule(0);
    rule.setWatchers(1);
    expect(rule.sleepNow()).toBe(false);
    rule.setWatchers(0);
    expect(rule.sleepNow()).toBe(true);
    rule.setWatchers(1);
    expect(changes).toEqual([true, false]);
  });

  it('never sleeps with 0, and never after close', () => {
    const never = sleepRule(0);
    vi.advanceTimersByTime(100 * SLEEP_AFTER_MS);
    expect(never.changes).toEqual([]);
    const closed = sleepRule();
    closed.rule.close();
    vi.advanceTimersByTime(SLEEP_AFTER_MS);
    expect(closed.changes).toEqual([]);
  });
});
