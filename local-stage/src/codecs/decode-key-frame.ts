/**
 * One key frame to one JPEG, with Debian's ffmpeg (its VP8 and H.264 decoders; the camera
 * process's libwebrtc has no H.264 decoder): a process per picture, fed the frame on its standard
 * input, VP8 in an IVF file of one frame, H.264 as Annex B. The picture keeps the video's aspect
 * ratio, its width the video's within the bounds asked for: the thumbnail process's cards
 * (docs/decisions/0070-thumbnails.md) and the recorder's segment previews
 * (docs/decisions/0084-recording-what-a-person-watches.md) share it.
 */
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';

const DECODE_TIMEOUT_MS = 5_000;
const MAX_PICTURE_BYTES = 2 * 1024 * 1024;

/** A whole key frame as the decoder takes it. */
export interface EncodedKeyFrame {
  codec: 'vp8' | 'h264';
  /** VP8: the frame as RFC 6386 writes it; H.264: Annex B NAL units, parameter sets first. */
  data: Uint8Array;
  /** VP8 only, for the IVF header (the decoder reads the frame's own). */
  width?: number;
  height?: number;
}

export interface DecodeOptions {
  /** The picture's width, px: the video's, brought within these bounds (height follows, even). */
  width: { min: number; max: number };
  /** The ffmpeg to run (ffmpegCommand() by default). */
  ffmpeg?: string;
  /** A decode still running after this long is killed (5 s by default). */
  timeoutMs?: number;
  /**
   * The ffmpeg process's niceness (`os.setPriority`) at least: never above the caller's priority
   * (a caller run niced further keeps its decodes so). The caller's own by default.
   */
  nice?: number;
}

export class DecodeError extends Error {
  override name = 'DecodeError';

  constructor(
    message: string,
    /** ffmpeg could not be run at all (missing, not executable): no decode will succeed. */
    readonly unavailable = false,
  ) {
    super(message);
  }
}

/** The ffmpeg to run: FFMPEG_PATH, else `ffmpeg` on the PATH. */
export function ffmpegCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.FFMPEG_PATH || 'ffmpeg';
}

/** An IVF file (the container ffmpeg reads VP8 from) holding one frame. */
export function ivfOfOneFrame(frame: Uint8Array, width = 0, height = 0): Uint8Array {
  const file = Buffer.alloc(32 + 12 + frame.length);
  file.write('DKIF', 0, 'ascii');
  file.writeUInt16LE(0, 4); // version
  file.writeUInt16LE(32, 6); // header size
  file.write('VP80', 8, 'ascii');
  file.writeUInt16LE(width, 12);
  file.writeUInt16LE(height, 14);
  file.writeUInt32LE(30, 16); // time base: 1/30 s
  file.writeUInt32LE(1, 20);
  file.writeUInt32LE(1, 24); // frames
  file.writeUInt32LE(frame.length, 32);
  // bytes 36-43: the frame's timestamp, 0
  file.set(frame, 44);
  return file;
}

/**
 * Decodes `keyFrame` into a JPEG; rejects with a DecodeError saying why not (`unavailable` when
 * ffmpeg could not be run at all).
 */
export function decodeKeyFrame(keyFrame: EncodedKeyFrame, options: DecodeOptions): Promise<Buffer> {
  const ffmpeg = options.ffmpeg ?? ffmpegCommand();
  const { min, max } = options.width;
  const input =
    keyFrame.codec === 'vp8'
      ? ivfOfOneFrame(keyFrame.data, keyFrame.width, keyFrame.height)
      : keyFrame.data;
  const args = [
    ...['-hide_banner', '-loglevel', 'error', '-nostdin'],
    ...['-f', keyFrame.codec === 'vp8' ? 'ivf' : 'h264', '-i', 'pipe:0'],
    ...['-frames:v', '1', '-vf', `scale=w='min(max(iw\\,${min})\\,${max})':h=-2`],
    ...['-q:v', '4', '-f', 'image2pipe', '-c:v', 'mjpeg', 'pipe:1'],
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    if (options.nice !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.max(options.nice, getPriority()));
      } catch {
        // Gone already (it failed at once), or not ours to lower: it runs at the caller's.
      }
    }
    const out: Buffer[] = [];
    let size = 0;
    let errors = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? DECODE_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PICTURE_BYTES) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errors.length < 2_000) errors += chunk.toString();
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new DecodeError(`could not run ${ffmpeg}: ${error.message}`, true));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const picture = Buffer.concat(out);
      if (code === 0 && picture.length > 0) resolve(picture);
      else {
        const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
        reject(new DecodeError(`${ffmpeg} ${how}: ${errors.trim() || 'no picture'}`));
      }
    });
    child.stdin.on('error', () => undefined); // ffmpeg may close its input early on a bad frame
    child.stdin.end(input);
  });
}
