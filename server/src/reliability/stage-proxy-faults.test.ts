/**
 * The local stage down behind the API's `/stage/` proxy: the browser's signalling socket is
 * closed with a reason that names nothing internal (no address, no port, no errno), and HTTP
 * requests get the usual JSON 502 without internals.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { STAGE_UNREACHABLE } from '../routes/stage-proxy';
import { build, testConfig } from '../test/helpers';
import { closedPort } from '../test/raw-http';

interface CloseFrame {
  code: number;
  reason: string;
}

/** Opens a WebSocket through the API and resolves with the close frame the API sends. */
function closeFrameOf(base: string, path: string): Promise<CloseFrame> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
      },
    });
    const timer = setTimeout(() => reject(new Error('no close frame within 10 s')), 10_000);
    req.on('upgrade', (_res, socket, head) => {
      let buffered = head;
      const read = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        // Server frames are unmasked; a close frame's payload (< 126 bytes) is code + reason.
        if (buffered.length < 2) return;
        const length = buffered[1]! & 0x7f;
        if (buffered.length < 2 + length) return;
        clearTimeout(timer);
        socket.destroy();
        if ((buffered[0]! & 0x0f) !== 0x8) {
          reject(new Error(`expected a close frame, got opcode ${buffered[0]! & 0x0f}`));
          return;
        }
        const payload = buffered.subarray(2, 2 + length);
        resolve({
          code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005,
          reason: payload.subarray(2).toString('utf8'),
        });
      };
      socket.on('data', read);
      socket.on('close', () => {
        clearTimeout(timer);
        reject(new Error('socket closed without a close frame'));
      });
      read(Buffer.alloc(0));
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      reject(new Error(`no upgrade: ${res.statusCode}`));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the stage proxy with the local stage down', () => {
  it("closes the browser's WebSocket with a reason that does not name the stage's address", async () => {
    const port = await closedPort();
    const base = testConfig();
    const { app } = await build({
      config: { localStage: { ...base.localStage, url: `http://127.0.0.1:${port}` } },
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const frame = await closeFrameOf(address, '/stage/events');
    expect(frame.code).toBe(1011);
    expect(frame.reason).not.toContain(String(port));
    expect(frame.reason).not.toMatch(/127\.0\.0\.1|ECONN|connect /);
    expect(frame.reason).toBe(STAGE_UNREACHABLE);
    // The API itself keeps serving.
    expect((await fetch(`${address}/api/health`)).status).toBe(200);
  });

  it('answers HTTP requests with a JSON 502 that names nothing internal', async () => {
    const port = await closedPort();
    const base = testConfig();
    const { app } = await build({
      config: { localStage: { ...base.localStage, url: `http://127.0.0.1:${port}` } },
    });
    const response = await app.inject({ url: '/stage/health' });
    expect(response.statusCode).toBeGreaterThanOrEqual(502);
    expect(response.statusCode).toBeLessThanOrEqual(503);
    expect(response.json()).toEqual({ error: STAGE_UNREACHABLE });
    expect(response.body).not.toContain(String(port));
  });
});
