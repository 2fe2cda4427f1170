/**
 * What a browser must have to play, checked before anything is asked of the server: the error
 * then names the missing feature in plain words, rather than the TypeError it would cause.
 * Features a page lacks outside a secure context (`crypto.randomUUID`) are not on this list: the
 * player does without them (client-id.ts).
 */
import { uiText } from '@/config/ui-text';

export function missingBrowserFeature(scope: typeof globalThis = globalThis): string | undefined {
  if (typeof scope.RTCPeerConnection !== 'function') return uiText.errors.webRtcMissing;
  return undefined;
}
