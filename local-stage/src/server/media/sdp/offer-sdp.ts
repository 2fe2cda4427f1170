/**
 * What the stage accepts of a WHIP publisher's offer (RFC 9725) or a WHEP player's, and the offer
 * it hands werift.
 *
 * One audio and one video section at most, each sending. Video: the first of the offered codecs,
 * in the publisher's order, that every viewer's browser decodes and the stage can find key
 * frames in: H.264 with packetization-mode 1, or VP8. Audio: Opus. The stage forwards the chosen
 * codecs untouched, so a viewer's offer announces exactly what the publisher sends
 * (`PublishedCodec`). A publisher's video may be simulcast (`a=simulcast` and its `a=rid` lines,
 * RFC 8853 and 8851): werift is given its RTP stream ids and receives a track per encoding
 * (docs/decisions/0067-simulcast-in.md); RTX is never offered to werift (it has none with simulcast).
 *
 * werift answers every offered codec whose MIME type it knows, with feedback it does not give,
 * so the offer it sees is trimmed to the chosen codec, with NACK, PLI and FIR feedback only; and a
 * `bundle-only` section with port 0 (GStreamer's video) gets a real port, as RFC 8843 reads it.
 *
 * Offers are read, and the offer werift is given written, with sdp-transform. The two edits of
 * the answer to a publisher read it with sdp-transform too, but change only the lines they are
 * about and leave every other line as it is: each edit touches nothing else.
 */
import {
  parse,
  parseParams,
  write,
  type MediaDescription,
  type SessionDescription,
} from 'sdp-transform';
import { EndpointError } from './endpoint-error';

/** An offer the stage cannot take (400). */
export class OfferError extends EndpointError {
  constructor(message: string) {
    super(400, message);
    this.name = 'OfferError';
  }
}

/** A codec as the publisher sends it, for the viewers' offers. */
export interface PublishedCodec {
  mimeType: 'video/H264' | 'video/VP8' | 'audio/opus';
  payloadType: number;
  clockRate: number;
  channels?: number;
  /** The format parameters as offered (H.264: profile, packetization mode, parameter sets). */
  parameters?: string;
}

export interface WhipOffer {
  /** The offer werift is given. */
  sdp: string;
  video: PublishedCodec | undefined;
  audio: PublishedCodec | undefined;
  /**
   * The RTP stream ids (RFC 8851) of a simulcast video (`a=simulcast` with its `a=rid` lines,
   * RFC 8853), in the offer's order; empty for one encoding.
   */
  rids: string[];
  /** The offer's ICE username fragment: a PATCH with another one asks for an ICE restart. */
  iceUfrag: string | undefined;
}

const MAX_LINE_LENGTH = 4096;
/** Simulcast encodings a publisher may send (Chromium and IVS send three). */
export const MAX_SIMULCAST_LAYERS = 4;
/** An RTP stream id: RFC 8851's characters, short enough for a log line. */
const RID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** The feedback the stage gives (`a=rtcp-fb` type and subtype). */
const KEPT_FEEDBACK = new Set(['nack', 'nack pli', 'ccm fir']);
/**
 * A WHEP player's REMB too: the stage stamps the absolute send time on what it sends it, and the
 * player's estimate chooses its layer (docs/decisions/0069-viewer-bandwidth-estimate.md).
 */
const KEPT_PLAYER_FEEDBACK = new Set([...KEPT_FEEDBACK, 'goog-remb']);

/**
 * Refuses, with `problem`, a body with a line that is not `x=value` or is too long: sdp-transform
 * would skip such a line and read the rest.
 */
function checkSdpLines(text: string, problem: string): void {
  const lines = text.split(/\r?\n/);
  if (lines.some((line) => line.length > MAX_LINE_LENGTH || !/^([a-z]=|$)/.test(line))) {
    throw new OfferError(problem);
  }
}

/** An offer, parsed: its session part and its media sections (audio and video, one of each). */
function parseOffer(text: string, role: 'WHIP publisher' | 'WHEP player') {
  if (text.split(/\r?\n/).find((line) => line !== '') !== 'v=0') {
    throw new OfferError('The body is not an SDP offer (it must start with v=0)');
  }
  checkSdpLines(text, 'The SDP offer has a line that is not "x=value"');
  const description = parse(text);
  const sections = description.media;
  for (const section of sections) {
    // Not set when the m= line is not `m=kind port proto formats`.
    const kind: unknown = section.type;
    if (kind !== 'audio' && kind !== 'video') {
      throw new OfferError(
        `The offer has a ${typeof kind === 'string' ? kind : 'malformed'} section; a ${role} has audio and video only`,
      );
    }
  }
  const videos = sections.filter((section) => section.type === 'video');
  const audios = sections.filter((section) => section.type === 'audio');
  if (videos.length > 1 || audios.length > 1) {
    throw new OfferError(
      'The offer has more than one audio or video section; send one of each at most',
    );
  }
  if (sections.length === 0) throw new OfferError('The offer has no audio or video section');
  return { description, sections, iceUfrag: iceUfragOf(description) };
}

/** The first ICE username fragment, of the session or else of a section. */
function iceUfragOf(description: SessionDescription): string | undefined {
  const iceUfrag =
    description.iceUfrag ??
    description.media.find((section) => section.iceUfrag !== undefined)?.iceUfrag;
  // sdp-transform reads a value of digits as a number.
  return iceUfrag === undefined ? undefined : String(iceUfrag);
}

const direction = (section: MediaDescription): string => section.direction ?? 'sendrecv';

export function readWhipOffer(text: string): WhipOffer {
  const { description, sections, iceUfrag } = parseOffer(text, 'WHIP publisher');
  let video: PublishedCodec | undefined;
  let audio: PublishedCodec | undefined;
  let rids: string[] = [];
  const kept = sections.map((section) => {
    if (direction(section) === 'recvonly' || direction(section) === 'inactive') {
      throw new OfferError(
        `The offer's ${section.type} section does not send (a WHIP offer sends)`,
      );
    }
    const codec = section.type === 'video' ? chooseVideo(section) : chooseAudio(section);
    if (section.type === 'video') {
      video = codec;
      rids = simulcastRids(section);
    } else audio = codec;
    return withSimulcast(
      trimmedTo(section, codec.payloadType),
      section.type === 'video' ? rids : [],
    );
  });
  return { sdp: write({ ...description, media: kept }), video, audio, rids, iceUfrag };
}

/**
 * The RTP stream ids a section sends as simulcast: the streams of its `a=simulcast` send list
 * (the first of each stream's alternatives; a paused one, `~`, too: it may start later), each
 * with its `a=rid:ID send` line. `a=rid` lines without `a=simulcast` only restrict one encoding
 * (RFC 8851), so there are none then.
 */
function simulcastRids(section: MediaDescription): string[] {
  const simulcast = section.simulcast;
  if (!simulcast) return [];
  const list = [
    simulcast.dir1 === 'send' ? simulcast.list1 : undefined,
    simulcast.dir2 === 'send' ? simulcast.list2 : undefined,
  ].find((candidate) => candidate !== undefined);
  if (list === undefined) return [];
  const rids = String(list)
    .split(';')
    .map((stream) => (stream.split(',')[0] ?? '').replace(/^~/, ''));
  const sent = new Set(
    (section.rids ?? []).filter((rid) => rid.direction === 'send').map((rid) => String(rid.id)),
  );
  for (const rid of rids) {
    if (!RID_PATTERN.test(rid)) {
      throw new OfferError(
        `The offer's a=simulcast has a malformed RTP stream id; use letters, digits, - and _`,
      );
    }
    if (!sent.has(rid)) {
      throw new OfferError(`The offer's a=simulcast names rid ${rid} with no "a=rid:${rid} send"`);
    }
  }
  if (new Set(rids).size !== rids.length) {
    throw new OfferError("The offer's a=simulcast names an RTP stream id twice");
  }
  if (rids.length > MAX_SIMULCAST_LAYERS) {
    throw new OfferError(
      `The offer's video has ${rids.length} simulcast encodings; send ${MAX_SIMULCAST_LAYERS} at most`,
    );
  }
  return rids;
}

/**
 * The section with exactly `rids` as its simulcast (an `a=rid:ID send` line each, with no
 * restrictions: the codec is already the one chosen; werift reads only the id and direction),
 * or with no rid and no simulcast line when `rids` is empty.
 */
function withSimulcast(section: MediaDescription, rids: string[]): MediaDescription {
  const { rids: _rids, simulcast: _simulcast, simulcast_03: _draft, ...rest } = section;
  if (rids.length === 0) return rest;
  return {
    ...rest,
    rids: rids.map((id) => ({ id, direction: 'send' })),
    simulcast: { dir1: 'send', list1: rids.join(';') },
  };
}

export interface WhepOffer {
  /** The offer werift is given: trimmed to the publisher's codecs. */
  sdp: string;
  /** What the player gets: what it asks for, of what the publisher sends. */
  media: { audio: boolean; video: boolean };
  iceUfrag: string | undefined;
}

/**
 * A WHEP player's offer for a publisher that sends `sent`: each section must receive, and offer
 * the publisher's codec (the stage forwards, it never transcodes). A section for media the
 * publisher does not send is answered and stays silent.
 */
export function readWhepOffer(
  text: string,
  sent: { video: PublishedCodec | undefined; audio: PublishedCodec | undefined },
): WhepOffer {
  const { description, sections, iceUfrag } = parseOffer(text, 'WHEP player');
  const media = { audio: false, video: false };
  const kept = sections.map((section) => {
    if (direction(section) === 'sendonly' || direction(section) === 'inactive') {
      throw new OfferError(
        `The offer's ${section.type} section does not receive (a WHEP offer receives)`,
      );
    }
    const codec = section.type === 'video' ? sent.video : sent.audio;
    if (!codec) return section;
    const payloadType = matchingPayloadType(section, codec);
    if (payloadType === undefined) {
      throw new OfferError(
        `No acceptable ${section.type} codec in the offer: this aircraft sends ${describe(codec)}`,
      );
    }
    media[section.type === 'video' ? 'video' : 'audio'] = true;
    return trimmedTo(section, payloadType, true, KEPT_PLAYER_FEEDBACK);
  });
  if (!media.audio && !media.video) {
    throw new OfferError('The offer asks for nothing this aircraft sends');
  }
  return { sdp: write({ ...description, media: kept }), media, iceUfrag };
}

/** A format parameter (`a=fmtp`) as text; sdp-transform reads a value of digits as a number. */
function parameter(parameters: string | undefined, name: string): string | undefined {
  const value = parseParams(parameters ?? '')[name];
  return value === undefined ? undefined : String(value);
}

const isPacketizationModeOne = (parameters: string | undefined) =>
  parameter(parameters, 'packetization-mode') === '1';

function describe(codec: PublishedCodec): string {
  if (codec.mimeType === 'video/H264') {
    const profile = parameter(codec.parameters, 'profile-level-id');
    const shown = profile !== undefined && /^[0-9a-f]{6}$/i.test(profile);
    return `H.264 (packetization-mode=1${shown ? `, profile-level-id=${profile}` : ''})`;
  }
  return codec.mimeType === 'video/VP8' ? 'VP8' : 'Opus';
}

/**
 * The player's payload type for what the publisher sends. H.264: packetization mode 1, the same
 * profile (the first byte of profile-level-id) when the player offers it, else any mode-1 H.264.
 */
function matchingPayloadType(section: MediaDescription, codec: PublishedCodec): number | undefined {
  const offered = offeredPayloadTypes(section).filter((payloadType) => {
    const map = rtpmap(section, payloadType);
    if (map === undefined) return false;
    return `${section.type}/${map.name}`.toLowerCase() === codec.mimeType.toLowerCase();
  });
  if (codec.mimeType !== 'video/H264') return offered[0];
  const modeOne = offered.filter((payloadType) =>
    isPacketizationModeOne(fmtp(section, payloadType)),
  );
  const profileOf = (parameters: string | undefined) =>
    parameter(parameters, 'profile-level-id')?.slice(0, 2).toLowerCase();
  const wanted = profileOf(codec.parameters);
  return (
    modeOne.find((payloadType) => profileOf(fmtp(section, payloadType)) === wanted) ?? modeOne[0]
  );
}

/** A payload type's `a=rtpmap`: codec name (upper case), clock rate and channels. */
function rtpmap(
  section: MediaDescription,
  payloadType: number,
): { name: string; clockRate: number | undefined; channels: number | undefined } | undefined {
  const map = section.rtp.find((candidate) => candidate.payload === payloadType);
  if (map === undefined) return undefined;
  // sdp-transform reads a codec name of digits as a number, and keeps a rate that is not one.
  const rate: unknown = map.rate;
  const encoding: unknown = map.encoding;
  return {
    name: String(map.codec).toUpperCase(),
    clockRate: typeof rate === 'number' ? rate : undefined,
    channels: typeof encoding === 'number' ? encoding : undefined,
  };
}

/** A payload type's format parameters, as offered. */
function fmtp(section: MediaDescription, payloadType: number): string | undefined {
  const line = section.fmtp.find((candidate) => candidate.payload === payloadType);
  return line === undefined ? undefined : String(line.config).trim();
}

/** The payload types in the m-line's order (the publisher's preference). */
function offeredPayloadTypes(section: MediaDescription): number[] {
  return String(section.payloads ?? '')
    .split(' ')
    .filter((field) => field !== '')
    .map(Number)
    .filter((value) => Number.isInteger(value) && value >= 0 && value < 128);
}

function chooseVideo(section: MediaDescription): PublishedCodec {
  for (const payloadType of offeredPayloadTypes(section)) {
    const map = rtpmap(section, payloadType);
    if (map?.clockRate !== 90_000) continue;
    const parameters = fmtp(section, payloadType);
    if (map.name === 'VP8')
      return { mimeType: 'video/VP8', payloadType, clockRate: 90_000, parameters };
    if (map.name === 'H264' && isPacketizationModeOne(parameters)) {
      return { mimeType: 'video/H264', payloadType, clockRate: 90_000, parameters };
    }
  }
  throw new OfferError(
    'No acceptable video codec in the offer: send H.264 (packetization-mode=1) or VP8',
  );
}

function chooseAudio(section: MediaDescription): PublishedCodec {
  for (const payloadType of offeredPayloadTypes(section)) {
    const map = rtpmap(section, payloadType);
    if (map?.name === 'OPUS' && map.clockRate === 48_000) {
      return {
        mimeType: 'audio/opus',
        payloadType,
        clockRate: 48_000,
        channels: map.channels ?? 2,
        parameters: fmtp(section, payloadType),
      };
    }
  }
  throw new OfferError('No acceptable audio codec in the offer: send Opus');
}

/** An RTX format for `payloadType`: `apt=` it, and no other parameter. */
function isRetransmissionOf(section: MediaDescription, other: number, payloadType: number) {
  const parameters = parseParams(fmtp(section, other) ?? '');
  return Object.keys(parameters).length === 1 && String(parameters.apt) === String(payloadType);
}

/**
 * The section with only `payloadType` left (and, for a player, its RTX), its kept feedback, and a
 * port for bundle-only.
 */
function trimmedTo(
  section: MediaDescription,
  payloadType: number,
  keepRtx = false,
  keptFeedback = KEPT_FEEDBACK,
): MediaDescription {
  const rtx = keepRtx
    ? offeredPayloadTypes(section).filter((other) =>
        isRetransmissionOf(section, other, payloadType),
      )
    : [];
  const kept = new Set([payloadType, ...rtx]);
  // trr-int is feedback the stage does not give either.
  const { bundleOnly, rtcpFbTrrInt: _trrInt, ...rest } = section;
  return {
    ...rest,
    port: section.port === 0 && bundleOnly !== undefined ? 9 : section.port,
    payloads: [...kept].join(' '),
    rtp: section.rtp.filter((map) => kept.has(map.payload)),
    fmtp: section.fmtp.filter((line) => kept.has(line.payload)),
    rtcpFb: section.rtcpFb?.filter(
      (feedback) =>
        kept.has(Number(feedback.payload)) &&
        keptFeedback.has([feedback.type, feedback.subtype].filter(Boolean).join(' ')),
    ),
  };
}

/**
 * `text` with each line (its line ending kept) replaced by what `edit` returns for it (without
 * its ending), or left out where `edit` returns undefined: the rest as werift wrote it.
 */
function editLines(text: string, edit: (line: string) => string | undefined): string {
  return text
    .split(/(?<=\n)/)
    .map((line) => {
      const ending = line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '';
      const edited = edit(line.slice(0, line.length - ending.length));
      return edited === undefined ? '' : edited + ending;
    })
    .join('');
}

/**
 * The answer without H.264 `sprop-parameter-sets`: they describe what a sender sends, and werift
 * copies the offer's format parameters into its answer.
 */
export function withoutParameterSets(answer: string): string {
  return editLines(answer, (line) => {
    const space = line.indexOf(' ');
    if (!line.startsWith('a=fmtp:') || space === -1) return line;
    const parameters = Object.entries(parseParams(line.slice(space + 1)));
    const kept = parameters.filter(([name]) => name !== 'sprop-parameter-sets');
    if (kept.length === parameters.length) return line;
    if (kept.length === 0) return undefined;
    const text = kept.map(([name, value]) => (value === undefined ? name : `${name}=${value}`));
    return `${line.slice(0, space)} ${text.join(';')}`;
  });
}

/**
 * The answer without the `a=ssrc` and `a=msid` lines of its receive-only sections: werift
 * announces the SSRC it sends RTCP from as if it were a stream, and a libwebrtc publisher (the
 * camera process, Chromium) then builds a receive stream for each section (an audio jitter buffer
 * pulled every 10 ms, a NACK timer every 20 ms, key-frame timers) that never gets a packet: most
 * of an idle camera's CPU (docs/benchmarks.md). The stage's RTCP is taken without them.
 */
export function withoutReceiveOnlyStreams(answer: string): string {
  const receiveOnly = parse(answer).media.map((section) => section.direction === 'recvonly');
  let section = -1;
  return editLines(answer, (line) => {
    if (line.startsWith('m=')) section += 1;
    const stream = ['a=ssrc:', 'a=ssrc-group:', 'a=msid:'].some((start) => line.startsWith(start));
    return stream && receiveOnly[section] === true ? undefined : line;
  });
}

/**
 * The ICE username fragment of a trickle PATCH body (`application/trickle-ice-sdpfrag`, RFC
 * 8840), if it names one; throws OfferError when the body is not such a fragment.
 */
export function readSdpFragment(text: string): { iceUfrag: string | undefined } {
  checkSdpLines(text, 'The body is not an SDP fragment (lines of "x=value")');
  return { iceUfrag: iceUfragOf(parse(text)) };
}
