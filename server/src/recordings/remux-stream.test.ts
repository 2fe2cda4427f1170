/**
 * The download's stream (remux-stream.ts) on its own: a reader that takes nothing is let go after
 * the stall bound.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  BufferTarget,
  EncodedPacket,
  EncodedVideoPacketSource,
  Output,
  WebMOutputFormat,
} from 'mediabunny';
import { tempDir } from '../test/helpers';
import { RemuxStream } from './remux-stream';

async function bigSegment(): Promise<Buffer> {
  const target = new BufferTarget();
  const output = new Output({ format: new WebMOutputFormat(), target });
  const video = new EncodedVideoPacketSource('vp8');
  output.addVideoTrack(video);
  await output.start();
  for (let index = 0; index < 20; index += 1) {
    const data = new Uint8Array(50_000);
    data.set(
      index === 0
        ? [0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00]
        : [0x51, 0x02, 0x00],
    );
    await video.add(
      new EncodedPacket(data, index === 0 ? 'key' : 'delta', index / 10, 0.1),
      index === 0
        ? { decoderConfig: { codec: 'vp8', codedWidth: 320, codedHeight: 180 } }
        : undefined,
    );
  }
  await output.finalize();
  return Buffer.from(target.buffer ?? new ArrayBuffer(0));
}

describe('RemuxStream', () => {
  it('ends as stalled when its reader takes nothing for the stall bound', async () => {
    const dir = join(tempDir('tailcam-remux-'), 'span');
    mkdirSync(dir);
    const bytes = await bigSegment();
    const segments = Array.from({ length: 10 }, (_, index) => {
      const name = `${String(index * 2000).padStart(10, '0')}-2000.webm`;
      writeFileSync(join(dir, name), bytes);
      return { name, shiftSeconds: index * 2 };
    });
    const stream = new RemuxStream({ dir, container: 'webm', segments }, 300);
    const errors: Error[] = [];
    stream.on('error', (error) => errors.push(error));
    // Nobody reads: the first chunks fill the stream's buffer, then the worker waits.
    await vi.waitFor(() => expect(stream.destroyed).toBe(true), { timeout: 10_000, interval: 20 });
    expect(stream.outcome).toBe('stalled');
    expect(errors.map((error) => error.message)).toEqual(['the reader took nothing for 300 ms']);
    expect(stream.bytes).toBeLessThan(bytes.length * 10);
  });
});
