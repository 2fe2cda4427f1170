/**
 * A segment's flight data (decision 0096): the in-band messages of the frames written to it, kept
 * beside it as `{offsetMs}.flight` (records: protocol/src/flight-data/recorded.ts), appended to as
 * the frames come, so the segment being written has its data readable too.
 *
 * `inBandOf` takes a frame's messages: a VP8 frame loses the stage's trailer (the segment gets
 * the frame as published), an H.264 frame keeps its SEI (decoders ignore it) and its messages are
 * read from it. A message repeated on the next frames (IVS's repeats, the newest on each key
 * frame) is recorded once a segment, at its first frame: that frame is its instant.
 */
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { flightFileName, RECORDING_FILE_MODE } from '@tailcam/protocol/recordings';
import { encodeFlightRecord, FLIGHT_FILE_MAGIC } from '@tailcam/protocol/flight-data/recorded';
import { readSeiMessages, takeTrailer, type InBandMessage } from '../codecs/in-band';
import type { StageLogger } from '../stage-log';

/** The frame to write and the messages it carried. */
export function inBandOf(
  codec: 'vp8' | 'h264',
  data: Buffer,
): { data: Buffer; messages: InBandMessage[] } {
  if (codec === 'h264') return { data, messages: readSeiMessages(data) };
  const { frame, messages } = takeTrailer(data);
  return {
    data: messages.length === 0 ? data : data.subarray(0, frame.length),
    messages,
  };
}

/** Payloads remembered to tell a repeat: a few seconds of repeats and key frames. */
const REMEMBERED = 16;

export class FlightSidecar {
  readonly path: string;
  private started = false;
  private failed = false;
  private readonly recent: Buffer[] = [];

  constructor(
    dir: string,
    offsetMs: number,
    private readonly log: StageLogger,
  ) {
    this.path = join(dir, flightFileName(offsetMs));
  }

  /** Records `messages` at `timeMs` from the segment's first frame (repeats left out). */
  record(timeMs: number, messages: readonly InBandMessage[]): void {
    if (this.failed || messages.length === 0) return;
    const records: Uint8Array[] = [];
    for (const message of messages) {
      const payload = Buffer.from(message.payload);
      if (payload.length === 0 || this.recent.some((seen) => seen.equals(payload))) continue;
      this.recent.push(payload);
      if (this.recent.length > REMEMBERED) this.recent.shift();
      records.push(
        encodeFlightRecord({ timeMs: Math.max(0, timeMs), uuid: message.uuid, payload }),
      );
    }
    if (records.length === 0) return;
    try {
      // Written once at a time, whole records: a reader never sees half of what is appended here
      // but for the last record of a file being written, which it leaves for its next look.
      appendFileSync(
        this.path,
        Buffer.concat([...(this.started ? [] : [FLIGHT_FILE_MAGIC]), ...records]),
        { mode: RECORDING_FILE_MODE },
      );
      this.started = true;
    } catch (error) {
      // The picture is what matters: it goes on being recorded without its data.
      this.failed = true;
      this.log.warn({ err: error }, `recording: cannot keep the flight data ${this.path}`);
    }
  }

  /** The segment was not kept: its data goes too. */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
