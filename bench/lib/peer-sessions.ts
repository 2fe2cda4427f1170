import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { peerPagePort } from './janus';

/**
 * What a bench page needs to open a viewing session on either server, as source text for an
 * init script (so no build helper leaks into the page). It defines `window.__peer`:
 * - `joinOurs(participantToken, onTrack)`: `new IVSBroadcastClient.Stage(token, strategy, config)`
 *   with the web app's viewer strategy (video only, publish nothing) and its configuration (the
 *   offer with `joined`), then `join()`; needs /sdk/stage.js.
 * - `joinJanus(server, mountpoint, onTrack)`: janus.js as its streaming demo uses it: `new Janus()`,
 *   attach the streaming plugin, `watch`, answer, `start`; needs janus.js.
 * Both stamp `__bench.clickAt` (the page probe's, when there is one) just before the session is
 * created, and resolve once the session is asked for media; `onTrack` gets the video track.
 *
 * janus.js reads the browser's name from adapter.js (webrtc-adapter), which only smooths over
 * browser differences Chromium does not have: the page hands it the Chromium it is, and no
 * adapter. No STUN server either way (janus.js defaults to Google's): loopback host candidates.
 */

export interface PeerPageApi {
  joinOurs(participantToken: string, onTrack: (track: MediaStreamTrack) => void): Promise<void>;
  joinJanus(
    server: string,
    mountpoint: number,
    onTrack: (track: MediaStreamTrack) => void,
  ): Promise<void>;
  /** A participant token for `stageId` from our API (at `api`), with the viewer's login token. */
  participantToken(api: string, loginToken: string, stageId: string): Promise<string>;
  /** Plays `track` in the page's video element. */
  show(track: MediaStreamTrack): void;
  /** Opens `count` sessions that play nowhere (the receive-only viewers), five at a time. */
  openViewers(
    target: {
      kind: 'ours' | 'janus';
      server: string;
      stream: string | number;
      loginToken?: string;
    },
    count: number,
  ): Promise<void>;
  /** Every session opened (kept referenced so none is collected while it plays). */
  sessions: unknown[];
}

export function peerSessionsScript(chromiumMajor: number): string {
  return `;(${String.raw`(chromiumMajor) => {
  const stampStart = () => {
    if (window.__bench) window.__bench.clickAt = performance.now();
  };
  let janusReady;
  const peer = {
    sessions: [],
    async participantToken(api, loginToken, stageId) {
      const response = await fetch(api + '/api/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + loginToken },
        body: JSON.stringify({ stageId, clientId: crypto.randomUUID() }),
      });
      const body = await response.json().catch(() => undefined);
      if (typeof body?.token !== 'string') throw new Error('/api/token: ' + response.status);
      return body.token;
    },
    show(track) {
      document.getElementById('video').srcObject = new MediaStream([track]);
    },
    async openViewers(target, count) {
      const open = async () => {
        if (target.kind === 'janus') {
          await peer.joinJanus(target.server, Number(target.stream), () => undefined);
        } else {
          const token = await peer.participantToken(target.server, target.loginToken, target.stream);
          await peer.joinOurs(token, () => undefined);
        }
      };
      // Five at a time: quick, and not a burst that measures the server's admission instead.
      for (let opened = 0; opened < count; opened += 5) {
        await Promise.all(Array.from({ length: Math.min(5, count - opened) }, open));
      }
    },
    async joinOurs(participantToken, onTrack) {
      const sdk = window.IVSBroadcastClient;
      const strategy = {
        stageStreamsToPublish: () => [],
        shouldPublishParticipant: () => false,
        shouldSubscribeToParticipant: () => [sdk.StageSubscribeStreamType.VIDEO],
      };
      stampStart();
      // As the player configures it (stage-sdk.ts): the offer comes with joined.
      const configuration = { subscribeOnJoin: [sdk.StageSubscribeStreamType.VIDEO] };
      const stage = new sdk.Stage(participantToken, strategy, configuration);
      stage.on(sdk.StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED, (participant, streams) => {
        const video = streams.find((stream) => stream.streamType === sdk.StreamType.VIDEO);
        if (video) onTrack(video.mediaStreamTrack);
      });
      peer.sessions.push(stage);
      await stage.join();
    },
    async joinJanus(server, mountpoint, onTrack) {
      const Janus = window.Janus;
      janusReady ??= new Promise((done) =>
        Janus.init({
          debug: false,
          dependencies: Janus.useDefaultDependencies({
            adapter: { browserDetails: { browser: 'chrome', version: chromiumMajor } },
          }),
          callback: done,
        }),
      );
      await janusReady;
      await new Promise((resolve, reject) => {
        stampStart();
        let handle;
        const janus = new Janus({
          server,
          iceServers: [],
          error: (error) => reject(new Error('janus: ' + error)),
          success: () =>
            janus.attach({
              plugin: 'janus.plugin.streaming',
              error: (error) => reject(new Error('attach: ' + error)),
              success: (attached) => {
                handle = attached;
                handle.send({ message: { request: 'watch', id: mountpoint } });
              },
              onmessage: (message, jsep) => {
                if (message.error) reject(new Error('watch: ' + message.error));
                if (!jsep) return;
                handle.createAnswer({
                  jsep,
                  // As the streaming demo: no local media, accept what is offered as recvonly.
                  tracks: [{ type: 'data' }],
                  success: (answer) => {
                    handle.send({ message: { request: 'start' }, jsep: answer });
                    resolve();
                  },
                  error: (error) => reject(new Error('answer: ' + error)),
                });
              },
              onremotetrack: (track, mid, on) => {
                if (on && track.kind === 'video') onTrack(track);
              },
            }),
        });
        peer.sessions.push(janus);
      });
    },
  };
  window.__peer = peer;
}`})(${chromiumMajor});
`;
}

/** The page every session is opened in: one video (which the page probe watches). */
const PEER_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench peer</title></head>
<body style="margin:0;background:#000">
<video id="video" autoplay muted playsinline width="640" height="360"></video>
</body></html>`;

/**
 * Serves the bench's peer page, janus.js and our /sdk/stage.js (fetched once from the API) from
 * one loopback origin of its own (peerPagePort(): BENCH_PORT + 102), as a site embedding either player
 * would. A real server rather than Playwright's request interception: Chromium's Local Network
 * Access checks treat an intercepted page as public and refuse its connections to loopback. Our
 * API must list this origin in CORS_ORIGINS (the token request and the stage's socket), and name
 * itself in PUBLIC_URL (bench/run.ts), so that the token's events_url is the API's own and the
 * page opens the stage's socket there directly, as the app's page does (an earlier version passed
 * it through this server: a hop of the bench's own in every join of ours, none in Janus's).
 */
export class PeerPageServer {
  readonly url = `http://127.0.0.1:${peerPagePort()}`;
  private server: Server | undefined;

  /** Serves the peer page, our SDK and, for the Janus comparison, janus.js. */
  async start(apiUrl: string, janusJsPath?: string): Promise<void> {
    const response = await fetch(`${apiUrl}/sdk/stage.js`);
    if (!response.ok) throw new Error(`${apiUrl}/sdk/stage.js: ${response.status}`);
    const files: Record<string, { type: string; body: string }> = {
      '/': { type: 'text/html', body: PEER_PAGE_HTML },
      '/sdk/stage.js': { type: 'text/javascript', body: await response.text() },
      ...(janusJsPath
        ? { '/janus.js': { type: 'text/javascript', body: readFileSync(janusJsPath, 'utf8') } }
        : {}),
    };
    const server = createServer((request, reply) => {
      const file = files[new URL(request.url ?? '/', this.url).pathname];
      reply.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' });
      reply.end(file?.body ?? 'not found');
    });
    this.server = server;
    await new Promise<void>((listening, failed) => {
      server.once('error', failed);
      server.listen(Number(new URL(this.url).port), '127.0.0.1', listening);
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  }
}
