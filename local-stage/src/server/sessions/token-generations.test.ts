import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenGenerations } from './token-generations';

afterEach(() => {
  vi.useRealTimers();
});

describe('TokenGenerations', () => {
  it('says no-table for every token until the whole table has come, then judges by it', () => {
    const table = new TokenGenerations({ loaded: false });
    expect(table.loaded).toBe(false);
    expect(table.verdict('alice', 0)).toBe('no-table');
    table.load({ alice: 1, bob: 0 });
    expect(table.loaded).toBe(true);
    expect(table.users).toBe(2);
    expect(table.verdict('alice', 0)).toBe('revoked');
    expect(table.verdict('alice', 1)).toBe('current');
    expect(table.verdict('bob', 0)).toBe('current');
  });

  it('refuses a user the table does not name (a removed account), once it has a table', () => {
    const table = new TokenGenerations({ loaded: true });
    expect(table.verdict('removed', 0)).toBe('unknown-user');
    expect(table.verdict('removed', 7)).toBe('unknown-user');
  });

  it('refuses a token older than a change recorded before the table came', () => {
    const table = new TokenGenerations({ loaded: false });
    table.record('alice', 2);
    expect(table.verdict('alice', 1)).toBe('revoked');
    expect(table.verdict('alice', 2)).toBe('no-table');
  });

  it('never lowers a generation: an older table or change, from any API instance, in any order', () => {
    const table = new TokenGenerations({ loaded: false });
    table.load({ alice: 3, bob: 1 });
    table.load({ alice: 2, bob: 1, carol: 0 });
    table.record('alice', 1);
    expect(table.verdict('alice', 2)).toBe('revoked');
    expect(table.verdict('alice', 3)).toBe('current');
    expect(table.verdict('carol', 0)).toBe('current');
  });

  it("takes a token newer than the table's entry, and raises the entry to it", () => {
    const table = new TokenGenerations({ loaded: true });
    table.record('alice', 1);
    expect(table.verdict('alice', 4)).toBe('current');
    expect(table.verdict('alice', 3)).toBe('revoked');
  });

  it('lets a waiter know when the table comes, or that it did not within the time given', async () => {
    vi.useFakeTimers();
    const table = new TokenGenerations({ loaded: false });
    const late = table.whenLoaded(1_000);
    vi.advanceTimersByTime(1_000);
    expect(await late).toBe(false);
    const waiting = table.whenLoaded(1_000);
    table.load({});
    expect(await waiting).toBe(true);
    expect(await table.whenLoaded(0)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
