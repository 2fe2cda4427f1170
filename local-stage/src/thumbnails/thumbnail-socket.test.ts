/**
 * The thumbnail process's socket in DATA_DIR is its owner's alone from the instant it exists
 * (decision 0070): made under a umask, never made wider and then chmodded.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../stage-log';
import { listenOnSocket } from './thumbnail-socket';
import type { ThumbnailService } from './thumbnail-service';

const noPictures: ThumbnailService = {
  thumbnail: async () => undefined,
  stats: () => ({
    watching: [],
    keyFrames: 0,
    decodes: 0,
    decodeFailures: 0,
    process: { cpuMicros: 0, rssBytes: 0, uptimeMs: 0 },
  }),
  close: () => undefined,
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe('the thumbnail socket', () => {
  it('is 0600 from the moment listen makes it, whatever the umask, and the umask is given back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tailcam-thumbnail-socket-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const socketPath = join(dir, 'thumbnails.sock');
    const before = process.umask(0o022);
    cleanups.push(() => process.umask(before));

    // The mode the file has right after bind(), which listen() does before it returns.
    const modesAtBind: number[] = [];
    const listen = NetServer.prototype.listen;
    const spy = vi.spyOn(NetServer.prototype, 'listen').mockImplementation(function (
      this: NetServer,
      ...args: unknown[]
    ) {
      const result = Reflect.apply(listen, this, args) as NetServer;
      modesAtBind.push(statSync(socketPath).mode & 0o777);
      return result;
    });
    cleanups.push(() => spy.mockRestore());

    const server: Server = await listenOnSocket(noPictures, socketPath, silentLogger());
    cleanups.push(() => server.close());
    expect(modesAtBind).toEqual([0o600]);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(process.umask()).toBe(0o022);
  });
});
