/**
 * Local participant tokens name the stage's endpoints at PUBLIC_URL, or else at the origin the
 * request came to (its Host header). On loopback only this machine's browsers reach the server, so
 * that is fine; on any other address it lets a request's Host header choose where a viewer's
 * browser connects, so the server says so at start.
 */
import type { Config } from '../config';

/** Whether `host` (an address or name the server listens on) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(name);
}

/** The start-up warning for this configuration, or undefined when there is nothing to warn of. */
export function publicUrlWarning(
  config: Pick<Config, 'publicUrl' | 'host' | 'stageProvider'>,
): string | undefined {
  if (config.publicUrl !== undefined || config.stageProvider !== 'local') return undefined;
  if (isLoopbackHost(config.host)) return undefined;
  return `PUBLIC_URL is unset and the server listens on ${config.host}: local participant tokens will name the stage at whatever Host a request carries. Set PUBLIC_URL to the address browsers use (docs/deployment.md).`;
}
