/**
 * What a viewer's layer switch costs per VP8 packet, for `npm run bench -- --only=forwarding`
 * (decision 0107): the stage's own `LayerSwitch` fed libwebrtc-shaped VP8 packets of a simulcast
 * camera's layers, each packet a viewer's own copy as the publisher hands it out.
 */
import type { RtpPacket } from 'werift';
import type { VideoLayer } from '../server/media/publisher/video-layers';
import { LayerSwitch } from '../server/media/viewer/layer-switch';
import { testVideoLayer as layer } from './video-layer';
import { libwebrtcVp8Packet } from './vp8-packets';

/** A 640x360 VP8 packet's payload, about what the synthetic camera's top layer sends. */
export const PAYLOAD_BYTES = 1_100;

const vp8Packet = (ssrc: number, sequence: number, pictureId: number, keyFrame: boolean) =>
  libwebrtcVp8Packet({
    ssrc,
    sequence,
    picture: { id: pictureId, tl0: 3 },
    keyFrame,
    bytes: PAYLOAD_BYTES,
  });

/** ns a packet through `LayerSwitch.accept` (a viewer's own copy each), moved once or never. */
export function forwardingNsPerPacket(moved: boolean, count: number): number {
  const low = layer('q');
  const high = layer('f');
  let target = moved ? low : high;
  const viewer = new LayerSwitch({ target: () => target, askKeyFrame: () => undefined });
  const take = (from: VideoLayer, rtp: RtpPacket, now: number) =>
    viewer.accept(rtp.clone(), from, from.receive(rtp, now), now);
  if (moved) {
    take(low, vp8Packet(1, 10, 20_000, true), 0);
    take(low, vp8Packet(1, 11, 20_001, false), 1);
    target = high;
  }
  take(high, vp8Packet(3, 500, 100, true), 2);
  // The same few packets again and again: what is measured is the forwarding, not their making.
  const packets = Array.from({ length: 64 }, (_, index) =>
    vp8Packet(3, 501 + index, 101 + index, false),
  );
  let forwarded = 0;
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index += 1) {
    const rtp = packets[index % packets.length]!;
    rtp.header.sequenceNumber = (501 + index) & 0xffff;
    if (take(high, rtp, 3 + index / 100)) forwarded += 1;
  }
  const ns = Number(process.hrtime.bigint() - started) / count;
  if (forwarded !== count) throw new Error(`forwarded ${forwarded} of ${count} packets`);
  return ns;
}
