/**
 * How the local stage's recordings lie on disk (docs/decisions/0072-recorder.md), shared by the
 * recorder, which writes them, and the API, which lists and serves them:
 *
 *   RECORDINGS_DIR/{STAGE}/{spanStartMs}/{offsetMs}-{durationMs}.{webm|mp4}
 *
 * A span is one unbroken subscription to one publisher; `spanStartMs` is when its first frame
 * arrived (Unix ms, UTC). Each segment starts on a key frame, its own timestamps from 0, and
 * `offsetMs` places it in its span (on the media clock, so segments abut without gaps). A segment
 * being written is `{offsetMs}.part`, appended to only (the bytes written never change), and
 * served as it grows (docs/decisions/0085-the-segment-being-written-is-served.md); a killed
 * recorder's are removed at its start.
 */

/** Ten digits: zero-padded offsets sort by name as by time (up to 115 days in one span). */
const OFFSET_DIGITS = 10;

export type SegmentContainer = 'webm' | 'mp4';

export interface SegmentName {
  offsetMs: number;
  durationMs: number;
  container: SegmentContainer;
}

const SEGMENT_NAME = /^(\d{10})-(\d{1,9})\.(webm|mp4)$/;
const PART_NAME = /^(\d{10})\.part$/;
const SPAN_NAME = /^\d{13}$/;
/** A tail number as the stage knows it (letters, digits, dashes; at most 64). */
const STAGE_NAME = /^[A-Za-z0-9-]{1,64}$/;

export function segmentFileName({ offsetMs, durationMs, container }: SegmentName): string {
  return `${String(Math.round(offsetMs)).padStart(OFFSET_DIGITS, '0')}-${Math.max(0, Math.round(durationMs))}.${container}`;
}

export function partFileName(offsetMs: number): string {
  return `${String(Math.round(offsetMs)).padStart(OFFSET_DIGITS, '0')}.part`;
}

/**
 * A finished WebM segment's `.part`, renamed and kept a few seconds for whoever read it as it
 * grew (decision 0085): its bytes differ from the finished file's (sizes unknown), so a reader
 * that had some of them reads the rest here. An MP4's `.part` becomes the finished file.
 */
export function grownFileName(offsetMs: number): string {
  return `${String(Math.round(offsetMs)).padStart(OFFSET_DIGITS, '0')}.grown`;
}

/** A segment being written: its offset from its name (`{offsetMs}.part`); else undefined. */
export function parsePartFileName(name: string): number | undefined {
  const match = PART_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

const FLIGHT_NAME = /^(\d{10})\.flight$/;

/**
 * A segment's flight data (decision 0096): the in-band messages of its frames, beside it as
 * `{offsetMs}.flight`, appended to while the segment is written (so the same name serves the
 * segment being written and the finished one) and removed with it. Its records:
 * `flight-data/recorded.ts`.
 */
export function flightFileName(offsetMs: number): string {
  return `${String(Math.round(offsetMs)).padStart(OFFSET_DIGITS, '0')}.flight`;
}

/** A flight data file's segment offset from its name; undefined for anything else. */
export function parseFlightFileName(name: string): number | undefined {
  const match = FLIGHT_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

const PREVIEW_NAME = /^(\d{10})-(\d{1,9})\.jpg$/;

/**
 * A finished segment's preview picture (decision 0084): its first key frame as a JPEG about 160
 * px wide, beside it under its own name with `.jpg` (`{offsetMs}-{durationMs}.jpg`), written
 * after it and removed with it.
 */
export function previewFileName(segmentName: string): string {
  return segmentName.replace(/\.(webm|mp4)$/, '.jpg');
}

/** A preview's name read back: the segment's offset and duration; undefined for anything else. */
export function parsePreviewFileName(
  name: string,
): Pick<SegmentName, 'offsetMs' | 'durationMs'> | undefined {
  const match = PREVIEW_NAME.exec(name);
  return match ? { offsetMs: Number(match[1]), durationMs: Number(match[2]) } : undefined;
}

/** A finished segment's name read back; undefined for anything else (a `.part`, a stray file). */
export function parseSegmentFileName(name: string): SegmentName | undefined {
  const match = SEGMENT_NAME.exec(name);
  if (!match) return undefined;
  return {
    offsetMs: Number(match[1]),
    durationMs: Number(match[2]),
    container: match[3] as SegmentContainer,
  };
}

/** A span directory's name (its start, Unix ms); undefined when it is not one. */
export function parseSpanName(name: string): number | undefined {
  return SPAN_NAME.test(name) ? Number(name) : undefined;
}

export function spanName(startMs: number): string {
  return String(Math.round(startMs)).padStart(13, '0');
}

export function isStageName(name: string): boolean {
  return STAGE_NAME.test(name);
}

/** The MIME type a browser's MediaSource is given for a segment of `container`. */
export function segmentMimeType(container: SegmentContainer, codecs: string): string {
  return `${container === 'webm' ? 'video/webm' : 'video/mp4'}; codecs="${codecs}"`;
}

/**
 * The header on an answer for `{offsetMs}.part` (decision 0085): `writing` while the recorder
 * appends to it (the bytes so far, more to come at the same URL), `complete` once it is finished
 * (the finished segment's bytes: a reader that had N bytes asks for the rest from N).
 */
export const SEGMENT_STATE_HEADER = 'tailcam-segment';
export type SegmentState = 'writing' | 'complete';
/** On a `complete` answer: the finished segment's name (`{offsetMs}-{durationMs}.{ext}`). */
export const SEGMENT_NAME_HEADER = 'tailcam-segment-name';

/** Each span's description, written before its first segment. */
export const SPAN_META_FILE = 'span.json';

export interface SpanMeta {
  container: SegmentContainer;
  /** The RFC 6381 codecs of its tracks, as MediaSource.isTypeSupported takes them. */
  codecs: string;
  /** Who published: the synthetic camera or a real encoder. */
  publisher: 'camera' | 'encoder';
}

/** A span.json read back; undefined when it is not one. */
export function parseSpanMeta(text: string): SpanMeta | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { container, codecs, publisher } = value as Record<string, unknown>;
    if (container !== 'webm' && container !== 'mp4') return undefined;
    if (typeof codecs !== 'string' || !/^[A-Za-z0-9.,]{1,64}$/.test(codecs)) return undefined;
    if (publisher !== 'camera' && publisher !== 'encoder') return undefined;
    return { container, codecs, publisher };
  } catch {
    return undefined;
  }
}

/**
 * Each span's index of its finished segments (decision 0081), appended by the recorder and read
 * by the API from where it last stopped, so the list never reads or stats every file: a line
 * `+{segment name} {bytes}` when a segment is renamed into place, `-{segment name}` when retention
 * removes it, `*{offsetMs}.part` when a segment starts being written (decision 0085: the API finds
 * the segment being written here; it is written until the `+` line of its offset, or until its
 * `.part` is gone, a killed recorder's), `+{offsetMs}-{durationMs}.jpg {bytes}` when a segment's
 * preview is written (decision 0084: after its segment's `+` line; retention's `-` line of the
 * segment removes both; a reader that knows no previews skips the line, as a name it cannot
 * parse). A span without one (recorded before it existed) is read from its directory.
 */
export const SEGMENT_INDEX_FILE = 'segments.log';

export type SegmentIndexEntry =
  | { change: 'added'; name: string; segment: SegmentName; bytes: number }
  | { change: 'removed'; name: string }
  | { change: 'writing'; name: string; offsetMs: number }
  | { change: 'preview'; name: string; bytes: number };

export function segmentIndexLine(entry: SegmentIndexEntry): string {
  if (entry.change === 'writing') return `*${entry.name}\n`;
  if (entry.change === 'preview') return `+${entry.name} ${entry.bytes}\n`;
  return entry.change === 'added' ? `+${entry.name} ${entry.bytes}\n` : `-${entry.name}\n`;
}

/** One line of an index (without its newline) read back; undefined for anything else. */
export function parseSegmentIndexLine(line: string): SegmentIndexEntry | undefined {
  if (line.startsWith('*')) {
    const name = line.slice(1);
    const offsetMs = parsePartFileName(name);
    return offsetMs === undefined ? undefined : { change: 'writing', name, offsetMs };
  }
  const match = /^([+-])(\S+)(?: (\d{1,15}))?$/.exec(line);
  if (!match) return undefined;
  const name = match[2]!;
  if (match[1] === '+' && match[3] !== undefined && parsePreviewFileName(name)) {
    return { change: 'preview', name, bytes: Number(match[3]) };
  }
  const segment = parseSegmentFileName(name);
  if (!segment) return undefined;
  if (match[1] === '-') return { change: 'removed', name };
  if (match[3] === undefined) return undefined;
  return { change: 'added', name, segment, bytes: Number(match[3]) };
}

/** Who may read recordings: their owner only, wherever `RECORDINGS_DIR` is (decision 0081). */
export const RECORDING_DIR_MODE = 0o700;
export const RECORDING_FILE_MODE = 0o600;
