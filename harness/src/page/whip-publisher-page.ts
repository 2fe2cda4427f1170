/**
 * The publisher's page of the e2e specs and the soak, bundled by esbuild and served from another
 * origin than the app's (third-party-pages.ts): Eyevinn's WHIP client from npm publishes the
 * browser's camera (Chromium's fake one, `launchChromium({ fakeMedia: true })`). The page only picks the video codec, as a publishing page may, by
 * setting the codec preferences of the client's own peer connection before it makes its offer;
 * the WHIP requests are all the client's.
 */
import { WHIPClient } from '@eyevinn/whip-web-client';

export interface PublisherState {
  connectionState: string;
  resource: string | undefined;
  /** The video codec of the offer the client sent. */
  offeredVideo: string | undefined;
}

export interface WhipPublisherPage {
  start(options: { endpoint: string; token: string; videoCodec: string }): Promise<void>;
  state(): PublisherState;
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
): RTCPeerConnection {
  const connection = new RTCPeerConnection(configuration);
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

function publisherPage(): WhipPublisherPage {
  let client: WHIPClient | undefined;
  let peer: RTCPeerConnection | undefined;
  let resource: string | undefined;
  let offeredVideo: string | undefined;
  return {
    async start({ endpoint, token, videoCodec }) {
      const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: true });
      const preview = document.querySelector('video');
      if (preview) preview.srcObject = stream;
      client = new WHIPClient({
        endpoint,
        // No STUN server: the client's default (Google's) cannot be reached here, and on one
        // machine host candidates are all it takes.
        opts: { iceServers: [], authkey: token, debug: true },
        peerConnectionFactory: (configuration) => {
          peer = preferring(videoCodec, configuration, (codec) => (offeredVideo = codec));
          return peer;
        },
      });
      await client.ingest(stream);
      resource = await client.getResourceUrl();
    },
    state: () => ({ connectionState: peer?.connectionState ?? 'none', resource, offeredVideo }),
    async stop() {
      await client?.destroy();
    },
  };
}

window.whipPublisher = publisherPage();
