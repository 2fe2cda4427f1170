/**
 * A viewer's first layer while a publisher starts (a camera waking): its lowest layer comes first,
 * its highest a moment later, and the viewer opens on the highest, not on the first.
 */
import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { testVideoLayer } from '../../../testing/video-layer';
import { LAYERS_STARTING_MS, VideoLayers, type VideoLayer } from '../publisher/video-layers';
import { LayerChoice } from './layer-choice';

let sequence = 0;
/** Bytes a packet of each layer, one packet each 100 ms (the layers' sizes are unknown here). */
const BYTES: Record<string, number> = { q: 100, h: 300, f: 900 };
function feed(layer: VideoLayer, layers: VideoLayers, now: number): void {
  const header = new RtpHeader({
    ssrc: 1,
    sequenceNumber: sequence++ & 0xffff,
    timestamp: now * 90,
  });
  layer.receive(new RtpPacket(header, Buffer.alloc(BYTES[layer.rid ?? 'q'] ?? 100, 0x10)), now);
  layers.update(now);
}

function camera() {
  const q = testVideoLayer('q');
  const h = testVideoLayer('h');
  const f = testVideoLayer('f');
  return { q, h, f, layers: new VideoLayers([q, h, f]) };
}

describe('a viewer’s first layer while the publisher starts', () => {
  it('waits for the highest layer when the lowest comes first, then opens on it', () => {
    const { q, h, f, layers } = camera();
    const choice = new LayerChoice();
    feed(q, layers, 1_000);
    expect(layers.starting(1_000)).toBe(true);
    expect(choice.choose(layers, 1_000, {})).toBeUndefined();
    for (let now = 1_100; now <= 1_300; now += 100) {
      feed(q, layers, now);
      feed(h, layers, now);
      feed(f, layers, now);
    }
    expect(layers.starting(1_300)).toBe(false);
    expect(choice.choose(layers, 1_300, {})).toBe(f);
  });

  it('opens on the highest layer the moment it comes, not a choice later', () => {
    // A camera resuming for its first viewer: its three layers come within 20 ms, and the highest
    // layer's first frame is the key frame the join asked for (the next comes 300 ms on at best).
    const { q, h, f, layers } = camera();
    const choice = new LayerChoice();
    feed(q, layers, 1_000);
    expect(choice.choose(layers, 1_000, {})).toBeUndefined();
    feed(h, layers, 1_010);
    feed(f, layers, 1_020);
    expect(choice.choose(layers, 1_020, {})).toBe(f);
  });

  it('takes what arrives once the others have not come within the start', () => {
    const { q, h, layers } = camera();
    const choice = new LayerChoice();
    for (let now = 0; now <= LAYERS_STARTING_MS; now += 100) {
      feed(q, layers, now);
      feed(h, layers, now);
    }
    expect(layers.starting(LAYERS_STARTING_MS)).toBe(false);
    expect(choice.choose(layers, LAYERS_STARTING_MS, {})).toBe(h);
  });

  it('never holds a viewer of a publisher whose layers have long been on, when one is paused', () => {
    const { q, h, f, layers } = camera();
    for (let now = 0; now <= 3_000; now += 100) {
      feed(q, layers, now);
      feed(h, layers, now);
      if (now < 1_000) feed(f, layers, now);
    }
    expect(layers.starting(3_000)).toBe(false);
    expect(new LayerChoice().choose(layers, 3_000, {})).toBe(h);
  });
});
