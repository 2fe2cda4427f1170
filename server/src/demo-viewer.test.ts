import { describe, expect, it, vi } from 'vitest';
import { verifyPassword } from './auth/passwords';
import { announceDemoViewer, ensureDemoViewer } from './demo-viewer';
import { freshStore } from './test/helpers';

describe('demo viewer', () => {
  it('is created with a random password only for the local provider with no accounts', async () => {
    const store = await freshStore();
    expect(await ensureDemoViewer(store, 'ivs')).toBeUndefined();
    expect(await store.countUsers()).toBe(0);
    const viewer = await ensureDemoViewer(store, 'local');
    expect(viewer?.username).toBe('demo');
    const saved = await store.findByUsername('demo');
    expect(await verifyPassword(saved!.passwordHash, viewer!.password)).toBe(true);
    expect(await ensureDemoViewer(store, 'local')).toBeUndefined();
  });

  it('is sent to the parent over IPC when there is one, else printed on the console', () => {
    const send = vi.fn(() => true);
    announceDemoViewer({ username: 'demo', password: 'pw' }, send);
    expect(send).toHaveBeenCalledWith({ type: 'demo-viewer', username: 'demo', password: 'pw' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    announceDemoViewer({ username: 'demo', password: 'pw' }, null);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('password: pw'));
    log.mockRestore();
  });
});
