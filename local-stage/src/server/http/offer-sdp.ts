/**
 * What the stage accepts of a WHIP publisher's offer (RFC 9725) or a WHEP player's, and the offer
 * it hands werift.
 *
 * One audio and one video section at most, each sending. Video: the first of the offered codecs,
 * in the publisher's order, that every viewer's browser decodes and the stage can find key
 * frames in: H.264 with packetization-mode 1, or VP8. Audio: Opus. The stage forwards the chosen
 * codecs untouched, so a viewer's offer announces exactly what the publisher sends
 * (`PublishedCodec`).
 *
 * werift answers every offered codec whose MIME type it knows, with feedback it does not give,
 * so the offer it sees is trimmed to the chosen codec, with NACK, PLI and FIR feedback only; and a
 * `bundle-only` section with port 0 (GStreamer's video) gets a real port, as RFC 8843 reads it.
 */
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
  /** The offer's ICE username fragment: a PATCH with another one asks for an ICE restart. */
  iceUfrag: string | undefined;
}

const MAX_LINE_LENGTH = 4096;
const KEPT_FEEDBACK = /^a=rtcp-fb:\d+ (nack|nack pli|ccm fir)\s*$/;

interface Section {
  kind: string;
  lines: string[];
}

/** An offer's lines: its session part and its media sections (audio and video, one of each). */
function parseOffer(text: string, role: 'WHIP publisher' | 'WHEP player') {
  const lines = text.split(/\r?\n/).filter((line) => line !== '');
  if (lines[0] !== 'v=0') {
    throw new OfferError('The body is not an SDP offer (it must start with v=0)');
  }
  if (lines.some((line) => line.length > MAX_LINE_LENGTH || !/^[a-z]=/.test(line))) {
    throw new OfferError('The SDP offer has a line that is not "x=value"');
  }
  const session: string[] = [];
  const sections: Section[] = [];
  for (const line of lines) {
    const media = /^m=(\S+) /.exec(line);
    if (media) sections.push({ kind: media[1] ?? '', lines: [line] });
    else (sections.at(-1)?.lines ?? session).push(line);
  }
  for (const section of sections) {
    if (section.kind !== 'audio' && section.kind !== 'video') {
      throw new OfferError(
        `The offer has a ${section.kind} section; a ${role} has audio and video only`,
      );
    }
  }
  const videos = sections.filter((section) => section.kind === 'video');
  const audios = sections.filter((section) => section.kind === 'audio');
  if (videos.length > 1 || audios.length > 1) {
    throw new OfferError(
      'The offer has more than one audio or video section; send one of each at most',
    );
  }
  if (sections.length === 0) throw new OfferError('The offer has no audio or video section');
  const iceUfrag = lines
    .find((line) => line.startsWith('a=ice-ufrag:'))
    ?.slice(12)
    .trim();
  return { session, sections, iceUfrag };
}

function direction(section: Section): string {
  const line = section.lines.find((candidate) =>
    /^a=(sendrecv|sendonly|recvonly|inactive)$/.test(candidate),
  );
  return line?.slice(2) ?? 'sendrecv';
}

export function readWhipOffer(text: string): WhipOffer {
  const { session, sections, iceUfrag } = parseOffer(text, 'WHIP publisher');
  let video: PublishedCodec | undefined;
  let audio: PublishedCodec | undefined;
  const kept = sections.map((section) => {
    if (direction(section) === 'recvonly' || direction(section) === 'inactive') {
      throw new OfferError(
        `The offer's ${section.kind} section does not send (a WHIP offer sends)`,
      );
    }
    const codec = section.kind === 'video' ? chooseVideo(section) : chooseAudio(section);
    if (section.kind === 'video') video = codec;
    else audio = codec;
    return trimmedTo(section, codec.payloadType);
  });
  return { sdp: [...session, ...kept.flat()].join('\r\n') + '\r\n', video, audio, iceUfrag };
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
  const { session, sections, iceUfrag } = parseOffer(text, 'WHEP player');
  const media = { audio: false, video: false };
  const kept = sections.map((section) => {
    if (direction(section) === 'sendonly' || direction(section) === 'inactive') {
      throw new OfferError(
        `The offer's ${section.kind} section does not receive (a WHEP offer receives)`,
      );
    }
    const codec = section.kind === 'video' ? sent.video : sent.audio;
    if (!codec) return section.lines;
    const payloadType = matchingPayloadType(section, codec);
    if (payloadType === undefined) {
      throw new OfferError(
        `No acceptable ${section.kind} codec in the offer: this aircraft sends ${describe(codec)}`,
      );
    }
    media[section.kind === 'video' ? 'video' : 'audio'] = true;
    return trimmedTo(section, payloadType, true);
  });
  if (!media.audio && !media.video) {
    throw new OfferError('The offer asks for nothing this aircraft sends');
  }
  return { sdp: [...session, ...kept.flat()].join('\r\n') + '\r\n', media, iceUfrag };
}

function describe(codec: PublishedCodec): string {
  if (codec.mimeType === 'video/H264') {
    const profile = /profile-level-id=([0-9a-f]{6})/i.exec(codec.parameters ?? '')?.[1];
    return `H.264 (packetization-mode=1${profile ? `, profile-level-id=${profile}` : ''})`;
  }
  return codec.mimeType === 'video/VP8' ? 'VP8' : 'Opus';
}

/**
 * The player's payload type for what the publisher sends. H.264: packetization mode 1, the same
 * profile (the first byte of profile-level-id) when the player offers it, else any mode-1 H.264.
 */
function matchingPayloadType(section: Section, codec: PublishedCodec): number | undefined {
  const maps = rtpmaps(section);
  const offered = offeredPayloadTypes(section).filter((payloadType) => {
    const map = maps.get(payloadType);
    if (map === undefined) return false;
    return `${section.kind}/${map.name}`.toLowerCase() === codec.mimeType.toLowerCase();
  });
  if (codec.mimeType !== 'video/H264') return offered[0];
  const modeOne = offered.filter((payloadType) =>
    /(^|;)\s*packetization-mode=1(;|$)/.test(fmtp(section, payloadType) ?? ''),
  );
  const profileOf = (parameters: string | undefined) =>
    /profile-level-id=([0-9a-f]{2})/i.exec(parameters ?? '')?.[1]?.toLowerCase();
  const wanted = profileOf(codec.parameters);
  return (
    modeOne.find((payloadType) => profileOf(fmtp(section, payloadType)) === wanted) ?? modeOne[0]
  );
}

function rtpmaps(
  section: Section,
): Map<number, { name: string; clockRate: number; channels?: number }> {
  const maps = new Map<number, { name: string; clockRate: number; channels?: number }>();
  for (const line of section.lines) {
    const match = /^a=rtpmap:(\d+) ([\w-]+)\/(\d+)(?:\/(\d+))?\s*$/.exec(line);
    if (!match) continue;
    maps.set(Number(match[1]), {
      name: (match[2] ?? '').toUpperCase(),
      clockRate: Number(match[3]),
      ...(match[4] ? { channels: Number(match[4]) } : {}),
    });
  }
  return maps;
}

function fmtp(section: Section, payloadType: number): string | undefined {
  const prefix = `a=fmtp:${payloadType} `;
  return section.lines
    .find((line) => line.startsWith(prefix))
    ?.slice(prefix.length)
    .trim();
}

/** The payload types in the m-line's order (the publisher's preference). */
function offeredPayloadTypes(section: Section): number[] {
  const fields = (section.lines[0] ?? '').split(' ').slice(3);
  return fields.map(Number).filter((value) => Number.isInteger(value) && value >= 0 && value < 128);
}

function chooseVideo(section: Section): PublishedCodec {
  const maps = rtpmaps(section);
  for (const payloadType of offeredPayloadTypes(section)) {
    const map = maps.get(payloadType);
    if (map?.clockRate !== 90_000) continue;
    const parameters = fmtp(section, payloadType);
    if (map.name === 'VP8')
      return { mimeType: 'video/VP8', payloadType, clockRate: 90_000, parameters };
    if (map.name === 'H264' && /(^|;)\s*packetization-mode=1(;|$)/.test(parameters ?? '')) {
      return { mimeType: 'video/H264', payloadType, clockRate: 90_000, parameters };
    }
  }
  throw new OfferError(
    'No acceptable video codec in the offer: send H.264 (packetization-mode=1) or VP8',
  );
}

function chooseAudio(section: Section): PublishedCodec {
  const maps = rtpmaps(section);
  for (const payloadType of offeredPayloadTypes(section)) {
    const map = maps.get(payloadType);
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

/**
 * The section with only `payloadType` left (and, for a player, its RTX), its kept feedback, and a
 * port for bundle-only.
 */
function trimmedTo(section: Section, payloadType: number, keepRtx = false): string[] {
  const [mLine = '', ...rest] = section.lines;
  const [kind, port, proto] = mLine.split(' ');
  const bundleOnly = rest.includes('a=bundle-only');
  const realPort = port === '0' && bundleOnly ? '9' : port;
  const rtx = keepRtx
    ? offeredPayloadTypes(section).filter(
        (other) => fmtp(section, other)?.replace(/\s/g, '') === `apt=${payloadType}`,
      )
    : [];
  const kept = new Set([payloadType, ...rtx].map(String));
  const perCodec = /^a=(rtpmap|fmtp|rtcp-fb):(\d+|\*) /;
  const lines = rest.filter((line) => {
    if (line === 'a=bundle-only') return false;
    const match = perCodec.exec(line);
    if (!match) return true;
    if (!kept.has(match[2] ?? '')) return false;
    return match[1] !== 'rtcp-fb' || KEPT_FEEDBACK.test(line);
  });
  return [`${kind} ${realPort} ${proto} ${[...kept].join(' ')}`, ...lines];
}

/**
 * The answer without H.264 `sprop-parameter-sets`: they describe what a sender sends, and werift
 * copies the offer's format parameters into its answer.
 */
export function withoutParameterSets(answer: string): string {
  return answer
    .replace(/^(a=fmtp:\d+ .*?)sprop-parameter-sets=[^;\r\n]*;?/gm, '$1')
    .replace(/;(\r?)$/gm, '$1')
    .replace(/^a=fmtp:\d+ ?\r?\n/gm, '');
}

/**
 * The answer without the `a=ssrc` and `a=msid` lines of its receive-only sections: werift
 * announces the SSRC it sends RTCP from as if it were a stream, and a libwebrtc publisher (the
 * camera process, Chromium) then builds a receive stream for each section (an audio jitter buffer
 * pulled every 10 ms, a NACK timer every 20 ms, key-frame timers) that never gets a packet: most
 * of an idle camera's CPU (docs/benchmarks.md, issue 18). The stage's RTCP is taken without them.
 */
export function withoutReceiveOnlyStreams(answer: string): string {
  const lines = answer.split(/(?<=\n)/);
  const sections: string[][] = [[]];
  for (const line of lines) {
    if (line.startsWith('m=')) sections.push([]);
    sections.at(-1)?.push(line);
  }
  return sections
    .map((section, index) =>
      index > 0 && section.some((line) => /^a=recvonly\r?\n?$/.test(line))
        ? section.filter((line) => !/^a=(ssrc|ssrc-group|msid):/.test(line))
        : section,
    )
    .flat()
    .join('');
}

/**
 * The ICE username fragment of a trickle PATCH body (`application/trickle-ice-sdpfrag`, RFC
 * 8840), if it names one; throws OfferError when the body is not such a fragment.
 */
export function readSdpFragment(text: string): { iceUfrag: string | undefined } {
  const lines = text.split(/\r?\n/).filter((line) => line !== '');
  if (lines.some((line) => line.length > MAX_LINE_LENGTH || !/^[a-z]=/.test(line))) {
    throw new OfferError('The body is not an SDP fragment (lines of "x=value")');
  }
  const iceUfrag = lines
    .find((line) => line.startsWith('a=ice-ufrag:'))
    ?.slice(12)
    .trim();
  return { iceUfrag };
}
