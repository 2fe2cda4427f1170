/** The viewer's client id: a random UUID made once per browser session (docs/product.md#data). */
export const CLIENT_ID_KEY = 'tailcam_viewer_client_id';

export function getClientId(storage: Storage = sessionStorage): string {
  const existing = storage.getItem(CLIENT_ID_KEY);
  if (existing) return existing;
  const clientId = crypto.randomUUID();
  storage.setItem(CLIENT_ID_KEY, clientId);
  return clientId;
}
