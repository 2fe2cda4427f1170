import { Certificate, PrivateKey } from '@fidm/x509';
import { createVerify, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { RTCPeerConnection } from 'werift';
import { afterAll, describe, expect, it } from 'vitest';
import {
  nativeDtlsCounts,
  tweetnaclX25519,
  useNativeDtlsCrypto,
  x25519KeyPair,
  x25519SharedSecret,
} from './dtls-native-crypto';

// tweetnacl's own: what the native path must agree with.
const { keyPair: naclKeyPair, scalarMult: naclScalarMult } = tweetnaclX25519;

const peers: RTCPeerConnection[] = [];
afterAll(async () => {
  await Promise.all(peers.map((peer) => peer.close()));
});

/** A werift offerer and answerer on loopback; resolves once a message crossed their channel. */
async function handshake(): Promise<string> {
  const loopback = {
    iceServers: [],
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceInterfaceAddresses: { udp4: '127.0.0.1' },
  };
  const client = new RTCPeerConnection(loopback);
  const stage = new RTCPeerConnection(loopback);
  peers.push(client, stage);
  const channel = client.createDataChannel('check');
  const received = new Promise<string>((resolve) =>
    stage.onDataChannel.subscribe((incoming) =>
      incoming.onMessage.subscribe((message) => resolve(String(message))),
    ),
  );
  await client.setLocalDescription(await client.createOffer());
  await stage.setRemoteDescription(client.localDescription!);
  await stage.setLocalDescription(await stage.createAnswer());
  await client.setRemoteDescription(stage.localDescription!);
  await new Promise<void>((resolve) =>
    channel.stateChanged.subscribe((state) => state === 'open' && resolve()),
  );
  channel.send('through');
  return received;
}

describe('werift’s DTLS with Node’s own crypto', () => {
  it('agrees on every X25519 secret with tweetnacl, each side made by either', () => {
    for (let round = 0; round < 20; round += 1) {
      const native = x25519KeyPair();
      const theirs = naclKeyPair();
      const secret = x25519SharedSecret(native.secretKey, theirs.publicKey);
      expect(Buffer.from(secret)).toEqual(
        Buffer.from(naclScalarMult(theirs.secretKey, native.publicKey)),
      );
      expect(Buffer.from(naclScalarMult(native.secretKey, theirs.publicKey))).toEqual(
        Buffer.from(secret),
      );
      // A secret key tweetnacl never clamped (any 32 bytes) gives tweetnacl's result too.
      const raw = new Uint8Array(randomBytes(32));
      expect(Buffer.from(x25519SharedSecret(raw, native.publicKey))).toEqual(
        Buffer.from(naclScalarMult(raw, native.publicKey)),
      );
    }
  });

  it('hands out keys in buffers of their own (werift reads `.buffer`)', () => {
    const { publicKey, secretKey } = x25519KeyPair();
    expect(publicKey.buffer.byteLength).toBe(32);
    expect(secretKey.buffer.byteLength).toBe(32);
  });

  it('answers what OpenSSL refuses as tweetnacl did: a public key of low order', () => {
    useNativeDtlsCrypto();
    const lowOrder = new Uint8Array(32); // the point 0: every secret with it is all zeros
    const { secretKey } = naclKeyPair();
    const fallbacks = nativeDtlsCounts.fallbacks;
    expect(Buffer.from(nacl.scalarMult(secretKey, lowOrder))).toEqual(Buffer.alloc(32));
    expect(nativeDtlsCounts.fallbacks).toBe(fallbacks + 1);
    expect(() => nacl.scalarMult(secretKey, new Uint8Array(31))).toThrow();
  });

  it('signs as @fidm/x509 did: a signature the certificate’s key verifies', async () => {
    useNativeDtlsCrypto();
    const { certPem, keyPem } = await import('werift').then(({ CipherContext }) =>
      CipherContext.createSelfSignedCertificateWithKey(
        { signature: 3, hash: 4 }, // ECDSA, SHA-256: werift's own certificate
        23, // P-256
      ),
    );
    const key = PrivateKey.fromPEM(Buffer.from(keyPem));
    const data = randomBytes(100);
    const signatures = nativeDtlsCounts.signatures;
    const signature = key.sign(data, 'sha256');
    expect(nativeDtlsCounts.signatures).toBe(signatures + 1);
    const certificate = Certificate.fromPEM(Buffer.from(certPem));
    const verify = createVerify('sha256').update(data);
    expect(verify.verify(certificate.publicKey.toPEM(), signature)).toBe(true);
  });

  it('is what werift’s handshake goes through, and the handshake still ends', async () => {
    useNativeDtlsCrypto();
    const before = { ...nativeDtlsCounts };
    expect(await handshake()).toBe('through');
    // Each side made a key pair and a secret; the server signed its key exchange.
    expect(nativeDtlsCounts.keyPairs - before.keyPairs).toBe(2);
    expect(nativeDtlsCounts.sharedSecrets - before.sharedSecrets).toBe(2);
    expect(nativeDtlsCounts.signatures - before.signatures).toBeGreaterThanOrEqual(1);
    expect(nativeDtlsCounts.fallbacks).toBe(before.fallbacks);
  });
});
