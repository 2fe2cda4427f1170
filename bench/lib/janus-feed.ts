/**
 * The feed of the bench's Janus mountpoint (started by bench/lib/janus.ts with one JSON argument):
 * N743AS's synthetic scene drawn by the camera's own SceneRenderer, time strip included, with the
 * capture time the wall clock when the frame is drawn (as camera.ts does), 640x360 at 30 fps,
 * piped as raw I420 into GStreamer (vp8enc, realtime, no lag, CBR 800 kbit/s like the camera's
 * 700-900) and sent to Janus as plain RTP, Janus's usual way in.
 *
 * Key frames on request, as our camera makes them: Janus sends its PLIs to the address its
 * mountpoint's RTCP port last heard from. This process sends it a receiver report every second
 * from its relay socket, and hands every packet Janus sends back to GStreamer's RTCP input, where
 * rtpbin turns a PLI into a key-frame request to vp8enc. Without that a new viewer would wait for
 * the next periodic key frame.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { z } from 'zod';
import { SceneRenderer } from '@tailcam/local-stage/scene';

const WIDTH = 640;
const HEIGHT = 360;
const FPS = 30;
const SSRC = 0x7a11ca;
/** A key frame every 10 s even without PLIs (none arrive if the relay is broken). */
const KEY_FRAME_MAX_DISTANCE = 300;
const MAX_LAG_FRAMES = 3;

const options = z
  .object({
    rtpPort: z.number().int(),
    janusRtcpPort: z.number().int(),
    gstRtcpPort: z.number().int(),
    relayPort: z.number().int(),
  })
  .parse(JSON.parse(process.argv[2] ?? '{}'));

const pipeline = [
  'fdsrc fd=0',
  `! rawvideoparse format=i420 width=${WIDTH} height=${HEIGHT} framerate=${FPS}/1`,
  '! vp8enc deadline=1 cpu-used=8 lag-in-frames=0 end-usage=cbr target-bitrate=800000',
  `  keyframe-max-dist=${KEY_FRAME_MAX_DISTANCE} error-resilient=default threads=1`,
  `! rtpvp8pay pt=96 ssrc=${SSRC} picture-id-mode=15-bit mtu=1200`,
  '! rtpbin.send_rtp_sink_0',
  'rtpbin name=rtpbin',
  `rtpbin.send_rtp_src_0 ! udpsink host=127.0.0.1 port=${options.rtpPort} sync=false async=false`,
  'rtpbin.send_rtcp_src_0 ! fakesink sync=false async=false',
  `udpsrc address=127.0.0.1 port=${options.gstRtcpPort} caps=application/x-rtcp`,
  '! rtpbin.recv_rtcp_sink_0',
].join(' ');
const gst = spawn('gst-launch-1.0', ['-q', ...pipeline.split(/\s+/).filter(Boolean)], {
  stdio: ['pipe', 'inherit', 'inherit'],
});
gst.once('exit', (code) => {
  console.error(`[janus-feed] gst-launch-1.0 exited (${code})`);
  process.exit(1);
});
gst.stdin.on('error', () => undefined); // the exit above reports it

// The RTCP relay: a receiver report (RR, no blocks) from our socket every second.
const relay = createSocket('udp4');
const receiverReport = Buffer.from([0x80, 201, 0, 1, 0, 0, 0, 1]);
let plis = 0;
relay.on('message', (packet, from) => {
  if (from.port !== options.janusRtcpPort) return;
  if (packet[1] === 206 && (packet[0] ?? 0) % 32 === 1) {
    plis += 1; // PSFB, FMT 1: PLI
    if (plis <= 3) console.error(`[janus-feed] PLI ${plis} from Janus, relayed to the encoder`);
  }
  relay.send(packet, options.gstRtcpPort, '127.0.0.1');
});
relay.bind(options.relayPort, '127.0.0.1', () => {
  const report = () => relay.send(receiverReport, options.janusRtcpPort, '127.0.0.1');
  report();
  setInterval(report, 1_000);
});

const scene = new SceneRenderer({
  streamId: 'N743AS',
  streamIndex: 0,
  width: WIDTH,
  height: HEIGHT,
});
const frame = new Uint8Array((WIDTH * HEIGHT * 3) / 2);
const interval = 1000 / FPS;
const start = performance.now();
let due = 0;
let drawn = 0;
let skipped = 0;
let writable = true;
gst.stdin.on('drain', () => (writable = true));

function tick(): void {
  if (writable) {
    scene.render(drawn, Date.now(), frame);
    drawn += 1;
    // A copy: the pipe may still hold the last frame when the next one is drawn.
    writable = gst.stdin.write(Buffer.from(frame));
  } else {
    skipped += 1; // GStreamer is behind: drop rather than queue (no added latency)
  }
  due += 1;
  const now = performance.now();
  if (now - (start + due * interval) > MAX_LAG_FRAMES * interval) {
    due = Math.ceil((now - start) / interval);
  }
  setTimeout(tick, Math.max(0, start + due * interval - now));
}
tick();

setInterval(() => {
  console.error(`[janus-feed] ${drawn} frames drawn, ${skipped} skipped, ${plis} PLIs relayed`);
}, 60_000).unref();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    gst.removeAllListeners('exit');
    gst.kill('SIGTERM');
    process.exit(0);
  });
}
