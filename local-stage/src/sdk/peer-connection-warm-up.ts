/**
 * The browser's WebRTC made ready while the page is idle, before any join: a page's first peer
 * connection costs its main thread more than the ones after it (the browser starts its WebRTC
 * threads and factories for it), and each new connection makes its own DTLS certificate. Both
 * were on the way to a viewer's first frame: the connection is made when the stage's offer comes.
 * So, once the SDK is loaded and the page idle, one connection is made and closed at once (it
 * gathers nothing and sends nothing), and one certificate is made for every subscription of the
 * page to share.
 */

/** The page's certificate for its subscriptions, once made. */
let certificate: RTCCertificate | undefined;
let warmed = false;

/** Warms the browser's WebRTC up when the page is next idle; once a page. */
export function warmUpPeerConnections(): void {
  if (warmed || typeof RTCPeerConnection !== 'function' || typeof window === 'undefined') return;
  warmed = true;
  const whenIdle: (run: () => void) => void =
    typeof requestIdleCallback === 'function'
      ? (run) => requestIdleCallback(run, { timeout: 1_000 })
      : (run) => setTimeout(run, 0);
  whenIdle(() => {
    try {
      new RTCPeerConnection().close();
    } catch {
      return; // not allowed here: each join makes its own, as without this
    }
    RTCPeerConnection.generateCertificate({ name: 'ECDSA', namedCurve: 'P-256' } as EcKeyGenParams)
      .then((made) => {
        certificate = made;
      })
      .catch(() => undefined);
  });
}

/** A subscription's configuration: its ICE servers, and the page's certificate once made. */
export function peerConnectionConfiguration(iceServers: RTCIceServer[]): RTCConfiguration {
  return certificate && certificate.expires > Date.now() + 60_000
    ? { iceServers, certificates: [certificate] }
    : { iceServers };
}
