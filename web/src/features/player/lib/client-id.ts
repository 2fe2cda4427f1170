/**
 * The viewer's client id: a random UUID made once per browser session (docs/product.md#data).
 * `crypto.randomUUID` exists only in a secure context (https, or this machine), so a page opened
 * over plain http from another machine, as `HOST=0.0.0.0 npm start` on a LAN serves it, makes the
 * same kind of UUID (version 4) from `crypto.getRandomValues`, which every context has.
 */
export const CLIENT_ID_KEY = 'tailcam_viewer_client_id';

export function getClientId(storage: Storage = sessionStorage): string {
  const existing = storage.getItem(CLIENT_ID_KEY);
  if (existing) return existing;
  const clientId = randomUuid();
  storage.setItem(CLIENT_ID_KEY, clientId);
  return clientId;
}

/** A random version 4 UUID (RFC 9562 §5.4), in any context. */
export function randomUuid(source: Crypto = crypto): string {
  if (typeof source.randomUUID === 'function') return source.randomUUID();
  const bytes = source.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // the RFC's variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
