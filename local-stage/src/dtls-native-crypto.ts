/**
 * werift's DTLS handshake with Node's own crypto where werift does it in JavaScript
 * (docs/decisions/0110-dtls-with-nodes-own-crypto.md). Measured on this project's machine, idle:
 * - **X25519**, the key exchange Chromium and Firefox offer first: werift calls tweetnacl's
 *   `box.keyPair` and `scalarMult`, pure JavaScript, ~1.3 ms a handshake (4–5 ms on a loaded
 *   machine), on the stage's one thread; OpenSSL's takes ~0.05 ms.
 * - **The ServerKeyExchange signature**: @fidm/x509's `PrivateKey.sign` hands OpenSSL its key as
 *   PEM at every call, 0.37 ms; the key, read once, signs in 0.025 ms.
 *
 * Both are swapped on the module objects werift calls through at each handshake (tweetnacl's
 * exports, @fidm/x509's `PrivateKey.prototype`), with the same results; anything the native path
 * cannot do (a public key of low order, a key type OpenSSL does not sign with) goes to the
 * original, so no handshake ends differently. Idempotent; each process that runs werift calls it
 * once at start.
 */
import { PrivateKey } from '@fidm/x509';
import {
  createPrivateKey,
  createPublicKey,
  createSign,
  diffieHellman,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import nacl from 'tweetnacl';

/** DER before a raw X25519 key: PKCS #8 (private) and SubjectPublicKeyInfo (public), RFC 8410. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const KEY_BYTES = 32;

/** tweetnacl's own, as loaded (before any swap): what the native path agrees with. */
export const tweetnaclX25519 = { keyPair: nacl.box.keyPair, scalarMult: nacl.scalarMult };

/** What the native path did, for the tests. */
export const nativeDtlsCounts = { keyPairs: 0, sharedSecrets: 0, signatures: 0, fallbacks: 0 };

/** Its own 32-byte buffer: werift reads a key pair's `.buffer`, not the view. */
function ownBytes(view: Uint8Array): Uint8Array {
  return new Uint8Array(view.subarray(view.length - KEY_BYTES));
}

/** tweetnacl's `box.keyPair()`: a random X25519 key pair, raw. */
export function x25519KeyPair(): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  nativeDtlsCounts.keyPairs += 1;
  return {
    publicKey: ownBytes(publicKey.export({ type: 'spki', format: 'der' })),
    secretKey: ownBytes(privateKey.export({ type: 'pkcs8', format: 'der' })),
  };
}

/** tweetnacl's `scalarMult(secretKey, publicKey)`: the X25519 shared secret, raw. */
export function x25519SharedSecret(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, secretKey]),
    format: 'der',
    type: 'pkcs8',
  });
  const peerKey = createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, publicKey]),
    format: 'der',
    type: 'spki',
  });
  const secret = new Uint8Array(diffieHellman({ privateKey, publicKey: peerKey }));
  nativeDtlsCounts.sharedSecrets += 1;
  return secret;
}

let installed = false;

/** Swaps werift's JavaScript X25519 and per-call PEM signing for Node's own. */
export function useNativeDtlsCrypto(): void {
  if (installed) return;
  installed = true;

  const boxKeyPair = tweetnaclX25519.keyPair;
  nacl.box.keyPair = Object.assign(() => {
    try {
      return x25519KeyPair();
    } catch {
      nativeDtlsCounts.fallbacks += 1;
      return boxKeyPair();
    }
  }, boxKeyPair);
  const scalarMult = tweetnaclX25519.scalarMult;
  nacl.scalarMult = Object.assign((secretKey: Uint8Array, publicKey: Uint8Array) => {
    // Anything but two 32-byte keys is tweetnacl's to refuse as it always has.
    if (secretKey.length !== KEY_BYTES || publicKey.length !== KEY_BYTES) {
      return scalarMult(secretKey, publicKey);
    }
    try {
      return x25519SharedSecret(secretKey, publicKey);
    } catch {
      // OpenSSL refuses a public key of low order (an all-zero secret); tweetnacl computes it.
      nativeDtlsCounts.fallbacks += 1;
      return scalarMult(secretKey, publicKey);
    }
  }, scalarMult);

  const keys = new WeakMap<PrivateKey, KeyObject>();
  const sign = PrivateKey.prototype.sign;
  PrivateKey.prototype.sign = function signOnce(this: PrivateKey, data, hashAlgorithm) {
    let key = keys.get(this);
    try {
      if (key === undefined) {
        key = createPrivateKey(this.toPEM());
        keys.set(this, key);
      }
      // Ed25519 has no digest to sign with: @fidm/x509's own way.
      if (key.asymmetricKeyType === 'ed25519') return sign.call(this, data, hashAlgorithm);
      const signature = createSign(hashAlgorithm).update(data).sign(key);
      nativeDtlsCounts.signatures += 1;
      return signature;
    } catch {
      nativeDtlsCounts.fallbacks += 1;
      return sign.call(this, data, hashAlgorithm);
    }
  };
}
