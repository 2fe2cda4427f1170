/**
 * A viewer who can reach the stage only through TURN over TCP or TLS watches (decision 0063), on
 * an instance of this spec's own configured with Debian's coturn on loopback (TURN_URLS with a
 * `turn:…?transport=tcp` and a `turns:` URI, TURN_SECRET): the API puts short-lived REST
 * credentials in the participant token, the page's SDK gives them to its peer connection, and
 * Chromium, held to relay candidates from one of the URIs (`iceTransportPolicy: 'relay'` added to
 * every peer connection the page makes, as behind a firewall that lets nothing else through),
 * plays relayed. coturn's certificate is self-signed, which Chromium refuses for `turns:` (tried:
 * no picture) unless told to ignore certificate errors. Loopback cannot block
 * UDP for real; the network lab (harness/) does. Skipped, saying so, where coturn is not
 * installed.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from '@playwright/test';
import { z } from 'zod';
import { CHROMIUM_ARGS, chromiumExecutable } from '@tailcam/harness/chromium';
import { Product } from '@tailcam/harness/product';
import { signIn } from '@tailcam/harness/sign-in';
import {
  coturnMissing,
  startCoturn,
  type RunningCoturn,
} from '@tailcam/local-stage/testing/coturn';
import { ownInstance } from './support/environment';
import { expect, expectVideoPlaying, test } from './support/fixtures';

const VIEWER = { username: 'turn-viewer', password: 'turn viewer password 1' };
const STAGE = 'N743AS';
const TURN_SECRET = 'an-e2e-coturn-static-auth-secret-of-enough-length';
const missing = coturnMissing();
if (missing !== undefined) console.warn(`SKIPPED turn-relay.spec.ts: ${missing}`);

/**
 * Records every RTCPeerConnection the page makes and the configuration the SDK gave it. With
 * `relayVia` (a URI scheme, `turn:` or `turns:`), the connection gets relay candidates only, from
 * the token's URIs of that scheme only. Each keeps a log of its states, candidates and TURN errors,
 * and its candidate pairs as last seen before it connected, for a join that does not play.
 */
function recordPeerConnections(relayVia: string | null): void {
  const Native = window.RTCPeerConnection;
  const made: {
    peer: RTCPeerConnection;
    configuration: RTCConfiguration | undefined;
    events: string[];
    pairs: string[];
  }[] = [];
  /** A peer connection's stats by id (`selectedPath` reads them too, through the window). */
  const statsById = async (peer: RTCPeerConnection) => {
    const entries = new Map<string, Record<string, unknown>>();
    (await peer.getStats()).forEach((entry: Record<string, unknown>) =>
      entries.set(String(entry.id), entry),
    );
    return entries;
  };
  Object.assign(window, { e2eMade: made, e2eStatsById: statsById });
  const onlyVia = (servers: RTCIceServer[], scheme: string): RTCIceServer[] =>
    servers.map((server) => ({
      ...server,
      urls: [server.urls].flat().filter((url) => url.startsWith(scheme)),
    }));
  const describePairs = async (peer: RTCPeerConnection): Promise<string[]> => {
    const entries = await statsById(peer);
    const candidate = (id: unknown) => {
      const found = entries.get(String(id));
      return `${String(found?.candidateType)} ${String(found?.address)}:${String(found?.port)}`;
    };
    return [...entries.values()]
      .filter((entry) => entry.type === 'candidate-pair')
      .map(
        (pair) =>
          `${candidate(pair.localCandidateId)} → ${candidate(pair.remoteCandidateId)}: ${String(pair.state)}, requests ${String(pair.requestsSent)} sent, ${String(pair.responsesReceived)} answered, ${String(pair.requestsReceived)} received`,
      );
  };
  window.RTCPeerConnection = class extends Native {
    constructor(configuration?: RTCConfiguration) {
      super(
        relayVia === null
          ? configuration
          : {
              ...configuration,
              iceServers: onlyVia(configuration?.iceServers ?? [], relayVia),
              iceTransportPolicy: 'relay',
            },
      );
      const start = performance.now();
      const record = { peer: this, configuration, events: [] as string[], pairs: [] as string[] };
      const log = (text: string) =>
        record.events.push(`${Math.round(performance.now() - start)} ms: ${text}`);
      this.addEventListener('connectionstatechange', () => log(this.connectionState));
      this.addEventListener('iceconnectionstatechange', () =>
        log(`ice ${this.iceConnectionState}`),
      );
      this.addEventListener('icecandidate', ({ candidate }) =>
        log(
          `candidate ${candidate?.type ?? 'end'} ${candidate?.address ?? ''}:${candidate?.port ?? ''}`,
        ),
      );
      this.addEventListener('icecandidateerror', (event) => {
        const { url, errorCode, errorText } = event as RTCPeerConnectionIceErrorEvent;
        log(`candidate error ${url} ${errorCode} ${errorText}`);
      });
      const watch = setInterval(() => {
        if (this.connectionState === 'closed' || this.connectionState === 'connected') {
          clearInterval(watch);
          return;
        }
        void describePairs(this).then((pairs) => (record.pairs = pairs));
      }, 1_000);
      made.push(record);
    }
  };
}

const candidateStats = z.object({
  candidateType: z.string().optional(),
  relayProtocol: z.string().optional(),
});

interface SelectedPath {
  iceServers: RTCIceServer[];
  local: z.infer<typeof candidateStats>;
}

/** The connected peer connection's ICE servers and the local candidate of its selected pair. */
async function selectedPath(page: Page): Promise<SelectedPath | undefined> {
  const found = await page.evaluate(async () => {
    const { e2eMade, e2eStatsById } = window as unknown as {
      e2eMade: { peer: RTCPeerConnection; configuration: RTCConfiguration | undefined }[];
      e2eStatsById: (peer: RTCPeerConnection) => Promise<Map<string, Record<string, unknown>>>;
    };
    const connected = e2eMade.find(({ peer }) => peer.connectionState === 'connected');
    if (connected === undefined) return undefined;
    const stats = await e2eStatsById(connected.peer);
    const transport = [...stats.values()].find((entry) => entry.type === 'transport');
    const pair = stats.get(String(transport?.selectedCandidatePairId));
    return {
      iceServers: connected.configuration?.iceServers ?? [],
      local: stats.get(String(pair?.localCandidateId)) ?? {},
    };
  });
  if (found === undefined) return undefined;
  return { iceServers: found.iceServers, local: candidateStats.parse(found.local) };
}

/**
 * What a relayed join that did not play leaves to read, printed with the failure (CI keeps only
 * the output): the page's peer connections and their candidate pairs, what the player shows,
 * coturn's requests and errors, and the stage's warnings.
 */
async function explainNoPicture(page: Page, product: Product, coturn: RunningCoturn) {
  const peers = await page
    .evaluate(() => {
      const { e2eMade } = window as unknown as {
        e2eMade: { peer: RTCPeerConnection; events: string[]; pairs: string[] }[];
      };
      return e2eMade.map(({ peer, events, pairs }) => ({
        state: peer.connectionState,
        events,
        pairsLastSeen: pairs,
      }));
    })
    .catch((error: unknown) => `no page state: ${String(error)}`);
  const shown = await page
    .locator('body')
    .innerText()
    .catch(() => '');
  const coturnLines = coturn
    .log()
    .split('\n')
    .filter((line) => /ALLOCATE|PERMISSION|CHANNEL|error|refused|closed|timeout/i.test(line))
    .slice(-40);
  let stageLines: string[] = [];
  try {
    stageLines = readFileSync(product.logFile, 'utf8')
      .split('\n')
      .filter((line) => /warn|error|subscription|fail/i.test(line))
      .slice(-40);
  } catch {
    // no log yet
  }
  console.log(
    [
      'the relayed join did not play; what it left:',
      `peer connections: ${JSON.stringify(peers, null, 1)}`,
      `the page shows: ${shown.replace(/\s+/g, ' ').slice(0, 300)}`,
      "coturn's log:",
      ...coturnLines,
      "the stage's log:",
      ...stageLines,
    ].join('\n'),
  );
}

/** The product's TURN_URLS: TURN over TCP and over TLS, both on loopback. */
function turnUrls(coturn: RunningCoturn): string[] {
  return [
    `turn:127.0.0.1:${coturn.port}?transport=tcp`,
    `turns:127.0.0.1:${coturn.tlsPort}?transport=tcp`,
  ];
}

/** Opens the player; the ms from navigation to the video playing. */
async function watch(
  page: Page,
  product: Product,
  loginToken: string,
  relayVia: 'turn:' | 'turns:' | null = null,
): Promise<number> {
  await page.addInitScript(recordPeerConnections, relayVia);
  await signIn(page, loginToken);
  const started = Date.now();
  await page.goto(`${product.baseUrl}/player/${STAGE}`);
  await expectVideoPlaying(page);
  return Date.now() - started;
}

/** `watch` through the relay; a join that does not play says what it left before it fails. */
async function watchRelayed(
  page: Page,
  product: Product,
  coturn: RunningCoturn,
  loginToken: string,
  relayVia: 'turn:' | 'turns:',
): Promise<number> {
  try {
    return await watch(page, product, loginToken, relayVia);
  } catch (error) {
    await explainNoPicture(page, product, coturn);
    throw error;
  }
}

test.describe('a viewer without UDP, through TURN over TCP or TLS', () => {
  test.skip(missing !== undefined, missing);
  let coturn: RunningCoturn | undefined;
  let product: Product | undefined;
  let loginToken: string;
  let tlsBrowser: Browser | undefined;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    coturn = await startCoturn({ secret: TURN_SECRET, lifetimeSeconds: 300, tls: true });
    product = new Product({
      ...ownInstance('turn', 600),
      env: {
        TURN_URLS: turnUrls(coturn).join(','),
        TURN_SECRET,
      },
    });
    product.addViewer(VIEWER);
    await product.start();
    loginToken = await product.loginToken(VIEWER);
  });

  test.afterAll(async () => {
    await tlsBrowser?.close();
    await product?.dispose();
    await coturn?.close();
  });

  test("plays relayed over TCP with the token's short-lived TURN credentials", async ({ page }) => {
    test.setTimeout(90_000);
    if (product === undefined || coturn === undefined) {
      throw new Error('not started');
    }
    // The first join also waits for the camera's first key frame: measured by neither.
    await watch(page, product, loginToken);
    await page.close();

    const directPage = await page.context().newPage();
    const directMs = await watch(directPage, product, loginToken);
    // Direct: its host pair. On a busy machine a relayed pair's check may answer first, and the
    // browser moves to the better pair once its own check does.
    await expect
      .poll(async () => (await selectedPath(directPage))?.local.candidateType, { timeout: 10_000 })
      .toBe('host');
    await directPage.close();

    const relayedPage = await page.context().newPage();
    const relayedMs = await watchRelayed(relayedPage, product, coturn, loginToken, 'turn:');
    const relayed = await selectedPath(relayedPage);
    expect(relayed?.local).toMatchObject({ candidateType: 'relay', relayProtocol: 'tcp' });
    // From the token: a REST username (expiry:user id) and its HMAC, never the secret.
    expect(relayed?.iceServers).toEqual([
      {
        urls: turnUrls(coturn),
        username: expect.stringMatching(/^\d{10}:\S+$/),
        credential: expect.stringMatching(/^[A-Za-z0-9+/]{27}=$/),
      },
    ]);
    expect(coturn.log()).toMatch(/incoming packet ALLOCATE processed, success/);
    await relayedPage.close();
    test.info().annotations.push({
      type: 'navigation → video playing, loopback',
      description: `direct ${directMs} ms, TURN over TCP ${relayedMs} ms`,
    });
    console.log(
      `player navigation → video playing on loopback: direct ${directMs} ms, through coturn TURN over TCP ${relayedMs} ms`,
    );
  });

  test('plays relayed over TLS (turns:) with the same credentials', async () => {
    test.setTimeout(60_000);
    if (product === undefined || coturn === undefined) throw new Error('not started');
    // coturn's certificate is a throwaway self-signed one: this browser takes it.
    tlsBrowser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: [...CHROMIUM_ARGS, '--ignore-certificate-errors'],
    });
    const relayedPage = await tlsBrowser.newPage();
    const relayedMs = await watchRelayed(relayedPage, product, coturn, loginToken, 'turns:');
    const relayed = await selectedPath(relayedPage);
    expect(relayed?.local).toMatchObject({ candidateType: 'relay', relayProtocol: 'tls' });
    console.log(`player navigation → video playing through coturn TURN over TLS: ${relayedMs} ms`);
  });
});
