import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import type { StageMessage } from '../../../signalling';
import { KeyFrameRequests } from '../publisher/key-frame-requests';
import { LAYER_SILENT_MS, VideoLayer, VideoLayers } from '../publisher/video-layers';
import { LayerReports } from './layer-reports';
import { testVideoLayer } from '../../../testing/video-layer';

const SIZES: Record<string, [number, number]> = { q: [160, 90], h: [320, 180], f: [640, 360] };

const layer = testVideoLayer;

/** A key frame of `layer`'s size, taken in at `now`. */
function keyFrame(target: VideoLayer, now: number): void {
  const [width, height] = SIZES[target.rid ?? ''] ?? [640, 360];
  const payload = Buffer.from([
    0x10,
    0x00,
    0x00,
    0x00,
    0x9d,
    0x01,
    0x2a,
    width & 0xff,
    width >> 8,
    height & 0xff,
    height >> 8,
  ]);
  const ssrc = { q: 1, h: 2, f: 3 }[target.rid ?? 'f'] ?? 3;
  target.receive(
    new RtpPacket(new RtpHeader({ ssrc, sequenceNumber: 1, timestamp: now }), payload),
    now,
  );
}

function setUp() {
  const [q, h, f] = [layer('q'), layer('h'), layer('f')] as const;
  const layers = new VideoLayers([q, h, f]);
  const sent: StageMessage[] = [];
  const reports = new LayerReports('sub-1', (message) => sent.push(message));
  return { q, h, f, layers, sent, reports };
}

describe('LayerReports', () => {
  it('tells the layers arriving, highest first, once, and the layer sent', () => {
    const { q, h, f, layers, sent, reports } = setUp();
    for (const each of [q, h, f]) keyFrame(each, 1_000);
    reports.check(1_000, layers, f, null);
    reports.check(1_010, layers, f, null);
    expect(sent).toEqual([
      {
        type: 'layers',
        subscriptionId: 'sub-1',
        layers: [
          expect.objectContaining({ rid: 'f', width: 640, height: 360 }),
          expect.objectContaining({ rid: 'h', width: 320, height: 180 }),
          expect.objectContaining({ rid: 'q', width: 160, height: 90 }),
        ],
      },
      {
        type: 'layerSelected',
        subscriptionId: 'sub-1',
        rid: 'f',
        adapting: true,
        reason: 'selected',
      },
    ]);
  });

  it('tells the layers again when one stops arriving', () => {
    const { q, h, f, layers, sent, reports } = setUp();
    for (const each of [q, h, f]) keyFrame(each, 1_000);
    reports.check(1_000, layers, f, null);
    const later = 1_000 + LAYER_SILENT_MS + 100;
    keyFrame(q, later);
    keyFrame(h, later);
    reports.check(later, layers, h, null);
    const told = sent.filter((message) => message.type === 'layers');
    expect(told).toHaveLength(2);
    expect(told[1]).toMatchObject({ layers: [{ rid: 'h' }, { rid: 'q' }] });
  });

  it('tells nothing while moving to a preferred layer, then the move, not adapting', () => {
    const { q, h, f, layers, sent, reports } = setUp();
    for (const each of [q, h, f]) keyFrame(each, 1_000);
    reports.check(1_000, layers, f, null);
    reports.preferenceChanged();
    reports.check(1_020, layers, f, 'q');
    expect(sent).toHaveLength(2);
    reports.check(1_040, layers, q, 'q');
    expect(sent.at(-1)).toEqual({
      type: 'layerSelected',
      subscriptionId: 'sub-1',
      rid: 'q',
      adapting: false,
      reason: 'selected',
    });
  });

  it("says 'unavailable' when the preferred layer is not arriving", () => {
    const { q, h, f, layers, sent, reports } = setUp();
    keyFrame(f, 0);
    for (const each of [q, h]) keyFrame(each, 1_000);
    reports.check(1_000, layers, h, 'f');
    expect(sent.at(-1)).toMatchObject({ type: 'layerSelected', rid: 'h', reason: 'unavailable' });
  });

  it('tells nothing of a publisher of one encoding', () => {
    const single = new VideoLayer({
      rid: null,
      mimeType: 'video/VP8',
      keyFrames: () =>
        new KeyFrameRequests({
          sendRequest: () => true,
          pendingMs: 250,
          minIntervalMs: 0,
          viewerIntervalMs: 1_000,
        }),
    });
    const sent: StageMessage[] = [];
    new LayerReports('sub-1', (message) => sent.push(message)).check(
      0,
      new VideoLayers([single]),
      single,
      null,
    );
    expect(sent).toEqual([]);
  });
});
