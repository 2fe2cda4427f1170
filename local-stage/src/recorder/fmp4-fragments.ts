/**
 * A segment's fragmented MP4 (H.264 + Opus) written a fragment at a time, every FRAGMENT_MS of
 * video, whether or not a key frame begins it (decision 0085): mediabunny's muxer starts a
 * fragment only at a key frame, and an encoder sends one only when the recorder asks, at each
 * 4 s cut, so the segment being written had nothing readable until it was finished. Each sample
 * carries its own sync flag, which Media Source Extensions go by.
 *
 * The file: mediabunny's `ftyp` and `moov` (the decoder configurations: avcC from the first key
 * frame, Opus's identification header), made from the first samples by a muxer that writes
 * nowhere; then a `moof` + `mdat` per fragment, appended; nothing is ever written back, and no
 * `mfra` (a reader finds the fragments in order).
 */
import { open, type FileHandle } from 'node:fs/promises';
import {
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  Mp4OutputFormat,
  NullTarget,
  Output,
} from 'mediabunny';
import { annexBNalUnits } from '../codecs/h264';

/** Video held before it is written as a fragment (ms): the `.part` is at most this behind. */
export const FRAGMENT_MS = 100;

/** ISO 14496-12 sample flags: a sync sample, and one that depends on others. */
const SYNC_SAMPLE = 0x02000000;
const NON_SYNC_SAMPLE = 0x01010000;

interface Sample {
  data: Uint8Array;
  /** From the segment's start, s. */
  startS: number;
  durationS: number;
  sync: boolean;
}

interface Track {
  id: number;
  timescale: number;
  pending: Sample[];
}

export interface Fmp4Config {
  video: { codec: string; codedWidth: number; codedHeight: number } | undefined;
  /** Opus's decoder configuration; undefined when the segment has no sound. */
  audio:
    | { codec: 'opus'; numberOfChannels: number; sampleRate: number; description: Uint8Array }
    | undefined;
}

export class Fmp4Fragments {
  private file: FileHandle | undefined;
  private video: Track | undefined;
  private audio: Track | undefined;
  /** Samples that came before the first key frame made the header. */
  private early: { kind: 'video' | 'audio'; sample: Sample }[] = [];
  private sequence = 1;

  constructor(
    private readonly path: string,
    private readonly config: Fmp4Config,
  ) {}

  async start(): Promise<void> {
    this.file = await open(this.path, 'w');
  }

  /** A video frame in Annex B. */
  async addVideo(
    data: Uint8Array,
    sync: boolean,
    startS: number,
    durationS: number,
  ): Promise<void> {
    const units = annexBNalUnits(data);
    const lengthPrefixed = Buffer.concat(
      units.flatMap((unit) => [u32(unit.length), Buffer.from(unit)]),
    );
    await this.add('video', { data: lengthPrefixed, startS, durationS, sync });
  }

  async addAudio(data: Uint8Array, startS: number, durationS: number): Promise<void> {
    await this.add('audio', { data, startS, durationS, sync: true });
  }

  /** Writes what is held as the last fragment. */
  async finish(): Promise<void> {
    if (!this.video && !this.audio && this.early.length > 0) await this.writeHeader();
    await this.writeFragment();
    await this.file?.close();
    this.file = undefined;
  }

  async abandon(): Promise<void> {
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
  }

  private async add(kind: 'video' | 'audio', sample: Sample): Promise<void> {
    if (!this.video && !this.audio) {
      this.early.push({ kind, sample });
      // The header needs the video's first key frame (its SPS and PPS); sound alone, any packet.
      const ready = this.config.video ? kind === 'video' : true;
      if (ready) await this.writeHeader();
      return;
    }
    (kind === 'video' ? this.video : this.audio)?.pending.push(sample);
    const paced = this.video ?? this.audio;
    const pending = paced?.pending;
    const first = pending?.[0];
    const last = pending?.at(-1);
    if (first && last && (last.startS + last.durationS - first.startS) * 1000 >= FRAGMENT_MS) {
      await this.writeFragment();
    }
  }

  /** `ftyp` + `moov`, from mediabunny muxing the first samples into nothing. */
  private async writeHeader(): Promise<void> {
    const header: Uint8Array[] = [];
    const output = new Output({
      format: new Mp4OutputFormat({
        fastStart: 'fragmented',
        onFtyp: (data) => void header.push(Uint8Array.from(data)),
        onMoov: (data) => void header.push(Uint8Array.from(data)),
      }),
      target: new NullTarget(),
    });
    const videoSource = this.config.video ? new EncodedVideoPacketSource('avc') : undefined;
    if (videoSource) output.addVideoTrack(videoSource);
    const audioSource = this.config.audio ? new EncodedAudioPacketSource('opus') : undefined;
    if (audioSource) output.addAudioTrack(audioSource);
    await output.start();
    const firstVideo = this.early.find((early) => early.kind === 'video');
    if (videoSource && this.config.video && firstVideo) {
      const annexB = toAnnexB(firstVideo.sample.data);
      await videoSource.add(new EncodedPacket(annexB, 'key', 0, firstVideo.sample.durationS), {
        decoderConfig: this.config.video,
      });
    }
    if (audioSource && this.config.audio) {
      // Any Opus packet: the header takes only its configuration.
      await audioSource.add(new EncodedPacket(new Uint8Array([0xf8, 0xff, 0xfe]), 'key', 0, 0.02), {
        decoderConfig: this.config.audio,
      });
    }
    await output.finalize();
    const bytes = Buffer.concat(header);
    const tracks = readTracks(bytes);
    this.video = tracks.video && { ...tracks.video, pending: [] };
    this.audio = tracks.audio && { ...tracks.audio, pending: [] };
    await this.write(bytes);
    const early = this.early;
    this.early = [];
    for (const { kind, sample } of early)
      (kind === 'video' ? this.video : this.audio)?.pending.push(sample);
  }

  private async writeFragment(): Promise<void> {
    const tracks = [this.video, this.audio].filter(
      (track): track is Track => track !== undefined && track.pending.length > 0,
    );
    if (tracks.length === 0) return;
    const trafs = (offsets: number[]) =>
      tracks.map((track, index) => traf(track, offsets[index] ?? 0));
    const moofSize = moof(this.sequence, trafs([])).length;
    const offsets: number[] = [];
    let offset = moofSize + 8;
    for (const track of tracks) {
      offsets.push(offset);
      offset += track.pending.reduce((sum, sample) => sum + sample.data.length, 0);
    }
    const data = tracks.flatMap((track) => track.pending.map((sample) => sample.data));
    const mdatSize = 8 + data.reduce((sum, chunk) => sum + chunk.length, 0);
    const fragment = Buffer.concat([
      moof(this.sequence, trafs(offsets)),
      u32(mdatSize),
      Buffer.from('mdat', 'latin1'),
      ...data,
    ]);
    this.sequence += 1;
    for (const track of tracks) track.pending = [];
    await this.write(fragment);
  }

  private async write(bytes: Uint8Array): Promise<void> {
    if (!this.file) throw new Error(`${this.path} is not open`);
    await this.file.write(bytes);
  }
}

function traf(track: Track, dataOffset: number): Buffer {
  const ticks = (seconds: number) => Math.round(seconds * track.timescale);
  const samples = track.pending;
  const entries = samples.map((sample, index) => {
    // Each lasts until the next (decode times add up), the last its own length.
    const next = samples[index + 1];
    const end = next ? next.startS : sample.startS + sample.durationS;
    return Buffer.concat([
      u32(Math.max(1, ticks(end) - ticks(sample.startS))),
      u32(sample.data.length),
      u32(sample.sync ? SYNC_SAMPLE : NON_SYNC_SAMPLE),
    ]);
  });
  const first = samples[0];
  return box(
    'traf',
    fullBox('tfhd', 0, 0x020000, u32(track.id)), // default-base-is-moof
    fullBox('tfdt', 1, 0, u64(Math.max(0, ticks(first?.startS ?? 0)))),
    // data-offset, sample-duration, sample-size and sample-flags present
    fullBox('trun', 0, 0x000701, u32(samples.length), s32(dataOffset), ...entries),
  );
}

function moof(sequence: number, trafs: Buffer[]): Buffer {
  return box('moof', fullBox('mfhd', 0, 0, u32(sequence)), ...trafs);
}

/** The video's and the sound's track IDs and timescales from a `moov`. */
function readTracks(header: Buffer): {
  video: { id: number; timescale: number } | undefined;
  audio: { id: number; timescale: number } | undefined;
} {
  const found: {
    video?: { id: number; timescale: number };
    audio?: { id: number; timescale: number };
  } = {};
  const moov = child(header, 0, header.length, 'moov');
  if (!moov) throw new Error('mediabunny wrote no moov');
  for (const trak of children(header, moov.start, moov.end, 'trak')) {
    const tkhd = child(header, trak.start, trak.end, 'tkhd');
    const mdia = child(header, trak.start, trak.end, 'mdia');
    const mdhd = mdia && child(header, mdia.start, mdia.end, 'mdhd');
    const hdlr = mdia && child(header, mdia.start, mdia.end, 'hdlr');
    if (!tkhd || !mdhd || !hdlr) continue;
    // tkhd: version, flags, then (v1) two u64 times or (v0) two u32 times, then the track ID.
    const id = header.readUInt32BE(tkhd.start + 4 + (header[tkhd.start] === 1 ? 16 : 8));
    const timescale = header.readUInt32BE(mdhd.start + 4 + (header[mdhd.start] === 1 ? 16 : 8));
    const handler = header.toString('latin1', hdlr.start + 8, hdlr.start + 12);
    if (handler === 'vide') found.video = { id, timescale };
    if (handler === 'soun') found.audio = { id, timescale };
  }
  return { video: found.video, audio: found.audio };
}

/** Boxes of `type` directly inside [start, end): their payloads' ranges. */
function children(bytes: Buffer, start: number, end: number, type: string) {
  const found: { start: number; end: number }[] = [];
  for (let at = start; at + 8 <= end;) {
    const size = bytes.readUInt32BE(at);
    if (size < 8) break;
    if (bytes.toString('latin1', at + 4, at + 8) === type)
      found.push({ start: at + 8, end: at + size });
    at += size;
  }
  return found;
}

function child(bytes: Buffer, start: number, end: number, type: string) {
  return children(bytes, start, end, type)[0];
}

function toAnnexB(lengthPrefixed: Uint8Array): Uint8Array {
  const bytes = Buffer.from(lengthPrefixed);
  const parts: Buffer[] = [];
  for (let at = 0; at + 4 <= bytes.length;) {
    const length = bytes.readUInt32BE(at);
    parts.push(Buffer.from([0, 0, 0, 1]), bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return Buffer.concat(parts);
}

function box(type: string, ...payload: Uint8Array[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Uint8Array[]): Buffer {
  return box(
    type,
    Buffer.from([version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff]),
    ...payload,
  );
}

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
}

function s32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
}

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}
