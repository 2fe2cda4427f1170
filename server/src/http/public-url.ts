/**
 * Local participant tokens name the stage by configuration only: PUBLIC_URL, or else a path on the
 * origin the token was fetched from (never a request's Host header). A token printed by a command
 * (`publish-token`, `subscribe-token`) has no such origin: without PUBLIC_URL it names localhost,
 * which is right only while the server listens on loopback.
 */

/** Whether `host` (an address or name the server listens on) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(name);
}
