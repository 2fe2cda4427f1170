/**
 * The publisher's page of the e2e specs and the soak, bundled by esbuild and served from another
 * origin than the app's (third-party-pages.ts): Eyevinn's WHIP client from npm publishes a
 * camera the page draws itself (drawn-camera.ts: one colour the tests look for, 4:3, any
 * browser). The page only picks the video codec, as a publishing page may, by
 * setting the codec preferences of the client's own peer connection before it makes its offer;
 * the WHIP requests are all the client's. With `simulcast` the page also sends its video as
 * several encodings (`sendEncodings`, as a publishing page does with `addTransceiver`), and gives
 * the encoder a start bitrate in the answer, as the camera process does: the stage sends no
 * congestion feedback yet, and libwebrtc's estimate would hold the top layers off for a long
 * while. With `inBandMessaging` (H.264), `insertSeiMessage` writes in-band messages into the
 * video as the IVS SDK's does (sei-sender.ts), through an `RTCRtpScriptTransform` whose worker
 * the page's server serves beside it (third-party-pages.ts).
 */
import { WHIPClient } from '@eyevinn/whip-web-client';
import { DRAWN_PICTURE_SIZE } from '../drawn-picture';
import { drawnCamera } from './drawn-camera';
import { SEI_SENDER_WORKER_PATH, SeiSender } from './sei-sender';
/** The drawn camera's frame rate (drawn-camera.ts), for IVS's rate rule. */
const DRAWN_FRAMES_PER_SECOND = 30;

export interface PublisherState {
  connectionState: string;
  resource: string | undefined;
  /** The video codec of the offer the client sent. */
  offeredVideo: string | undefined;
}

/** A simulcast publisher: its encodings, the drawn camera's size, the encoder's start. */
export interface SimulcastOptions {
  encodings: RTCRtpEncodingParameters[];
  width: number;
  height: number;
  startKbps: number;
}

export interface WhipPublisherPage {
  start(options: {
    endpoint: string;
    token: string;
    videoCodec: string;
    simulcast?: SimulcastOptions;
    /** Writes `insertSeiMessage`'s messages into the video (H.264 only). */
    inBandMessaging?: boolean;
  }): Promise<void>;
  state(): PublisherState;
  /** IVS's `LocalStageStream.insertSeiMessage`, the payload in hex (a test drives it). */
  insertSeiMessage(payloadHex: string, options?: { repeatCount?: number }): Promise<void>;
  /** Pauses or resumes one simulcast encoding (`active`), as an encoder short of bandwidth does. */
  setEncodingActive(rid: string, active: boolean): Promise<void>;
  stop(): Promise<void>;
}

declare global {
  interface Window {
    whipPublisher: WhipPublisherPage;
  }
}

/**
 * A peer connection whose offers send only `mimeType` video; `onOffer` hears the video codec
 * each offer names.
 */
function preferring(
  mimeType: string,
  configuration: RTCConfiguration,
  onOffer: (videoCodec: string | undefined) => void,
  simulcast: SimulcastOptions | undefined,
): RTCPeerConnection {
  const connection = new RTCPeerConnection(configuration);
  if (simulcast) sendingSimulcast(connection, simulcast);
  const createOffer = connection.createOffer.bind(connection);
  const preferringOffer = async (options?: RTCOfferOptions) => {
    const codecs = RTCRtpSender.getCapabilities('video')?.codecs ?? [];
    const wanted = codecs.filter(
      (codec) =>
        codec.mimeType === mimeType &&
        (mimeType !== 'video/H264' || /packetization-mode=1/.test(codec.sdpFmtpLine ?? '')),
    );
    if (wanted.length === 0) throw new Error(`this browser cannot send ${mimeType}`);
    for (const transceiver of connection.getTransceivers()) {
      if (transceiver.sender.track?.kind === 'video') transceiver.setCodecPreferences(wanted);
    }
    const offer = await createOffer(options);
    onOffer(/a=rtpmap:\d+ (\w+)\/90000/.exec(offer.sdp?.split('m=video')[1] ?? '')?.[1]);
    return offer;
  };
  // An own property over the prototype's method (the DOM types' overloads forbid assigning it).
  Object.defineProperty(connection, 'createOffer', { value: preferringOffer });
  return connection;
}

/** `connection` sends its video track as `simulcast.encodings`, starting at `startKbps`. */
function sendingSimulcast(connection: RTCPeerConnection, simulcast: SimulcastOptions): void {
  const addTrack = connection.addTrack.bind(connection);
  const simulcastTrack = (track: MediaStreamTrack, ...streams: MediaStream[]) =>
    track.kind === 'video'
      ? connection.addTransceiver(track, {
          direction: 'sendonly',
          streams,
          sendEncodings: simulcast.encodings,
        }).sender
      : addTrack(track, ...streams);
  Object.defineProperty(connection, 'addTrack', { value: simulcastTrack });
  const setRemoteDescription = connection.setRemoteDescription.bind(connection);
  const withStart = (description: RTCSessionDescriptionInit) =>
    setRemoteDescription({
      type: description.type,
      sdp: withStartBitrate(description.sdp ?? '', simulcast.startKbps),
    });
  Object.defineProperty(connection, 'setRemoteDescription', { value: withStart });
}

/**
 * `connection`'s video sender writes `seiSender`'s messages, from its first frame: Chromium runs a
 * sender's transform only when it was set before the sender started.
 */
function writingSei(connection: RTCPeerConnection, seiSender: SeiSender): void {
  const addTrack = connection.addTrack.bind(connection);
  const addTrackWritingSei = (track: MediaStreamTrack, ...streams: MediaStream[]) => {
    const sender = addTrack(track, ...streams);
    if (track.kind === 'video') seiSender.attach(sender);
    return sender;
  };
  Object.defineProperty(connection, 'addTrack', { value: addTrackWritingSei });
}

/** The answer with `x-google-start-bitrate` on its video codec (libwebrtc reads it there). */
function withStartBitrate(sdp: string, kbps: number): string {
  const video = sdp.indexOf('m=video');
  if (video === -1) return sdp;
  const payloadType = /^m=video \S+ \S+ (\d+)/m.exec(sdp.slice(video))?.[1];
  if (payloadType === undefined) return sdp;
  const start = `x-google-start-bitrate=${kbps}`;
  const fmtp = new RegExp(`^a=fmtp:${payloadType} .*$`, 'm');
  if (fmtp.test(sdp)) return sdp.replace(fmtp, (line) => `${line};${start}`);
  return sdp.replace(
    new RegExp(`^a=rtpmap:${payloadType} .*$`, 'm'),
    (line) => `${line}\r\na=fmtp:${payloadType} ${start}`,
  );
}

function publisherPage(): WhipPublisherPage {
  let client: WHIPClient | undefined;
  let peer: RTCPeerConnection | undefined;
  let resource: string | undefined;
  let offeredVideo: string | undefined;
  let seiSender: SeiSender | undefined;
  return {
    async start({ endpoint, token, videoCodec, simulcast, inBandMessaging }) {
      const stream = drawnCamera(simulcast ?? DRAWN_PICTURE_SIZE);
      const preview = document.querySelector('video');
      if (preview) preview.srcObject = stream;
      client = new WHIPClient({
        endpoint,
        // No STUN server: the client's default (Google's) cannot be reached here, and on one
        // machine host candidates are all it takes.
        opts: { iceServers: [], authkey: token, debug: true },
        peerConnectionFactory: (configuration) => {
          peer = preferring(
            videoCodec,
            configuration,
            (codec) => (offeredVideo = codec),
            simulcast,
          );
          if (inBandMessaging) {
            seiSender = new SeiSender(new Worker(SEI_SENDER_WORKER_PATH), DRAWN_FRAMES_PER_SECOND);
            writingSei(peer, seiSender);
          }
          return peer;
        },
      });
      await client.ingest(stream);
      resource = await client.getResourceUrl();
    },
    async insertSeiMessage(payloadHex, options) {
      if (!seiSender) {
        console.warn('insertSeiMessage: in-band messaging is not enabled');
        return;
      }
      const bytes = Uint8Array.from(payloadHex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
      await seiSender.insertSeiMessage(bytes.buffer, options);
    },
    state: () => ({ connectionState: peer?.connectionState ?? 'none', resource, offeredVideo }),
    async setEncodingActive(rid, active) {
      const sender = peer?.getSenders().find((candidate) => candidate.track?.kind === 'video');
      if (!sender) throw new Error('no video is being sent');
      const parameters = sender.getParameters();
      const encoding = parameters.encodings.find((candidate) => candidate.rid === rid);
      if (!encoding) throw new Error(`no encoding ${rid}`);
      encoding.active = active;
      await sender.setParameters(parameters);
    },
    async stop() {
      await client?.destroy();
    },
  };
}

window.whipPublisher = publisherPage();
