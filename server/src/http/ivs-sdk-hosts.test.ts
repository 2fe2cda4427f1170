/**
 * The ivs-mode CSP (decision 0032) is written against the hosts the IVS SDK file names. This
 * pins that list: an SDK upgrade that names a new host fails here, so the CSP is revisited
 * rather than broken in the browser.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../test/helpers';
import { contentSecurityPolicy } from './security-headers';

const sdk = readFileSync(testConfig().ivs.sdkFile, 'utf8');

describe('the IVS SDK file and the ivs-mode CSP', () => {
  it('names only live-video.net hosts, all inside the CSP on the default port but one', () => {
    const hosts = new Set<string>();
    for (const match of sdk.matchAll(
      /["'`](?:https?:\/\/|wss?:\/\/)?([a-z0-9.${}-]+\.live-video\.net)(:\d+)?/g,
    )) {
      hosts.add(`${match[1]}${match[2] ?? ''}`);
    }
    expect([...hosts].sort()).toEqual([
      '${r.groups.id}.webrtc.live-video.net:4443', // low-latency broadcast ingest: never a viewer's
      'beta.ivs-device-config-beta.live-video.net',
      'broadcast.stats.live-video.net',
      'prod.ivs-device-config.live-video.net',
    ]);
    const csp = contentSecurityPolicy({ stageProvider: 'ivs' });
    expect(csp).toContain("connect-src 'self' https://*.live-video.net wss://*.live-video.net;");
  });

  it('reaches no other host: its other URLs are an error text and an RTP extension name', () => {
    const urls = [...sdk.matchAll(/(?:https?|wss?):\/\/[^"'`\s)]+/g)].map((match) => match[0]);
    const elsewhere = urls.filter((url) => !/^https:\/\/[^/]*live-video\.net/.test(url));
    // Not addresses: a core-js error text and a WebRTC RTP header-extension URI. (The device
    // configuration URL is built from the two hosts above: "https://".concat(fetchServer, ...).)
    expect(elsewhere.sort()).toEqual([
      'http://www.webrtc.org/experiments/rtp-hdrext/video-layers-allocation00',
      'https://npms.io/search?q=ponyfill.',
    ]);
  });

  it('starts its worker from a blob: URL and uses no WebAssembly or eval', () => {
    expect(sdk).toContain('createObjectURL');
    expect(sdk).not.toMatch(/WebAssembly|importScripts|\beval\(/);
    expect(contentSecurityPolicy({ stageProvider: 'ivs' })).toContain("worker-src 'self' blob:");
  });
});
