import { afterEach, describe, expect, it, vi } from 'vitest';

/** The browser's RTCPeerConnection, as far as the warm-up uses it. */
function fakeBrowser(expires: number) {
  const made: { closed: boolean }[] = [];
  const certificate = { expires } as RTCCertificate;
  class FakePeerConnection {
    closed = false;
    constructor() {
      made.push(this);
    }
    close() {
      this.closed = true;
    }
    static generateCertificate = vi.fn(() => Promise.resolve(certificate));
  }
  const idle: (() => void)[] = [];
  vi.stubGlobal('window', {});
  vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
  vi.stubGlobal('requestIdleCallback', (run: () => void) => idle.push(run));
  return { made, certificate, idle, generated: FakePeerConnection.generateCertificate };
}

const warmUp = async () => {
  vi.resetModules();
  return import('./peer-connection-warm-up');
};
const servers = [{ urls: 'turn:198.18.0.1:3478', username: 'u', credential: 'c' }];

afterEach(() => vi.unstubAllGlobals());

describe('the WebRTC warm-up', () => {
  it('makes and closes one connection when the page is idle, and one certificate every subscription then shares', async () => {
    const browser = fakeBrowser(Date.now() + 30 * 86_400_000);
    const { warmUpPeerConnections, peerConnectionConfiguration } = await warmUp();
    warmUpPeerConnections();
    warmUpPeerConnections();
    // Nothing before the page is idle: the SDK's loading is not slowed.
    expect(browser.made).toHaveLength(0);
    expect(peerConnectionConfiguration(servers)).toEqual({ iceServers: servers });

    for (const run of browser.idle) run();
    await Promise.resolve();
    expect(browser.made).toEqual([{ closed: true }]);
    expect(browser.generated).toHaveBeenCalledTimes(1);
    expect(peerConnectionConfiguration(servers)).toEqual({
      iceServers: servers,
      certificates: [browser.certificate],
    });
    expect(peerConnectionConfiguration([]).certificates?.[0]).toBe(browser.certificate);
  });

  it('leaves out a certificate about to expire', async () => {
    const browser = fakeBrowser(Date.now() + 1_000);
    const { warmUpPeerConnections, peerConnectionConfiguration } = await warmUp();
    warmUpPeerConnections();
    for (const run of browser.idle) run();
    await Promise.resolve();
    expect(peerConnectionConfiguration(servers)).toEqual({ iceServers: servers });
  });

  it('does nothing where there is no WebRTC (Node, a browser without it)', async () => {
    const { warmUpPeerConnections, peerConnectionConfiguration } = await warmUp();
    expect(() => warmUpPeerConnections()).not.toThrow();
    expect(peerConnectionConfiguration(servers)).toEqual({ iceServers: servers });
  });
});
