/**
 * The download's remux, in a worker thread of its own (decision 0081): the segments of a stretch
 * as one file of the span's container, their packets copied as they are (nothing decoded), each
 * segment's timestamps moved to its place. It runs here, not on the API's thread, because an hour
 * of recording is tens of seconds of CPU.
 *
 * Each segment is read whole into memory (a few hundred KB) and parsed from there, so no file is
 * open longer than one `readFile`: a download stopped at any point leaves nothing open.
 *
 * The API's side (remux-stream.ts) gives credit: the worker sends a chunk and waits for `more`
 * before the next, so a slow reader slows the remux rather than filling memory.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import {
  ALL_FORMATS,
  BufferSource,
  EncodedAudioPacketSource,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  Input,
  Mp4OutputFormat,
  Output,
  StreamTarget,
  WebMOutputFormat,
  type StreamTargetChunk,
} from 'mediabunny';
import { parseRemuxJob, type FromWorker } from './remux-messages';
import { TrackClock } from './track-clock';

/** Chunks of this size go to the API's thread: few messages, little memory per download. */
const CHUNK_BYTES = 256 * 1024;

const port = parentPort;
if (!port) throw new Error('remux-worker.ts runs as a worker thread');

let stopped = false;
let credit: (() => void) | undefined;
port.on('message', (message: unknown) => {
  if (message === 'more') {
    const resume = credit;
    credit = undefined;
    resume?.();
  } else if (message === 'stop') {
    stopped = true;
    credit?.();
  }
});

const send = (message: FromWorker, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

async function remux(): Promise<number> {
  const job = parseRemuxJob(workerData);
  let written = 0;
  const writable = new WritableStream<StreamTargetChunk>({
    async write(chunk) {
      // The formats below write straight through; a seek back would corrupt the stream.
      if (chunk.position !== written) throw new Error('the muxer seeks back');
      if (stopped) throw new Error('stopped');
      written += chunk.data.byteLength;
      const data = chunk.data.slice();
      await new Promise<void>((resolve) => {
        credit = resolve;
        send({ type: 'chunk', data }, [data.buffer]);
      });
    },
  });
  const output = new Output({
    format:
      job.container === 'mp4'
        ? new Mp4OutputFormat({ fastStart: 'fragmented' })
        : new WebMOutputFormat({ appendOnly: true }),
    target: new StreamTarget(writable, { chunked: true, chunkSize: CHUNK_BYTES }),
  });
  const open = async (name: string) =>
    new Input({
      source: new BufferSource(await readFile(join(job.dir, name))),
      formats: ALL_FORMATS,
    });
  let video: EncodedVideoPacketSource | undefined;
  let audio: EncodedAudioPacketSource | undefined;
  const probe = await open(job.segments[0]!.name);
  try {
    const videoTrack = await probe.getPrimaryVideoTrack();
    const audioTrack = await probe.getPrimaryAudioTrack();
    const videoCodec = videoTrack?.codec;
    if (videoCodec === 'vp8' || videoCodec === 'avc')
      video = new EncodedVideoPacketSource(videoCodec);
    if (audioTrack?.codec === 'opus') audio = new EncodedAudioPacketSource('opus');
  } finally {
    probe.dispose();
  }
  if (video) output.addVideoTrack(video);
  if (audio) output.addAudioTrack(audio);
  const videoClock = new TrackClock();
  const audioClock = new TrackClock();
  try {
    await output.start();
    for (const segment of job.segments) {
      if (stopped) throw new Error('stopped');
      const input = await open(segment.name);
      try {
        const inVideo = await input.getPrimaryVideoTrack();
        const inAudio = await input.getPrimaryAudioTrack();
        // Video first, then the segment's sound: each track's timestamps only go forward.
        if (video && inVideo) {
          const config = await inVideo.getDecoderConfig();
          for await (const packet of new EncodedPacketSink(inVideo).packets()) {
            const timestamp = videoClock.place(packet.timestamp, segment.shiftSeconds);
            await video.add(packet.clone({ timestamp }), {
              decoderConfig: config ?? undefined,
            });
          }
        }
        if (audio && inAudio) {
          const config = await inAudio.getDecoderConfig();
          for await (const packet of new EncodedPacketSink(inAudio).packets()) {
            const timestamp = audioClock.place(packet.timestamp, segment.shiftSeconds);
            await audio.add(packet.clone({ timestamp }), {
              decoderConfig: config ?? undefined,
            });
          }
        }
      } finally {
        input.dispose();
      }
    }
    await output.finalize();
  } catch (error) {
    await output.cancel().catch(() => undefined);
    throw error;
  }
  return written;
}

remux()
  .then(
    (bytes) => send({ type: 'done', bytes }),
    (error: unknown) =>
      send(
        stopped
          ? { type: 'stopped' }
          : { type: 'failed', message: error instanceof Error ? error.message : String(error) },
      ),
  )
  // The port's listener would keep the thread alive: closing it lets the worker exit.
  .finally(() => port.close());
