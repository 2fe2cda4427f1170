/**
 * The player's page of e2e/whep-play.spec.ts, bundled by esbuild and served from another origin
 * than the app's (third-party-pages.ts): Eyevinn's WebRTC player from npm plays an aircraft over WHEP with what
 * `npm run subscribe-token` printed. Every request is the player's own.
 */
import { WebRTCPlayer } from '@eyevinn/webrtc-player';

export interface WhepPlayerPage {
  start(options: { endpoint: string; token: string }): Promise<void>;
  stop(): Promise<void>;
}

declare global {
  interface Window {
    whepPlayer: WhepPlayerPage;
  }
}

function playerPage(): WhepPlayerPage {
  let player: WebRTCPlayer | undefined;
  return {
    async start({ endpoint, token }) {
      const video = document.querySelector('video');
      if (!video) throw new Error('no video element');
      // No STUN server (none is reachable here, and the stage needs none).
      player = new WebRTCPlayer({ video, type: 'whep', iceServers: [] });
      // The player sends its second argument as the Authorization header, as is.
      await player.load(new URL(endpoint), `Bearer ${token}`);
    },
    async stop() {
      await player?.unload();
      player = undefined;
    },
  };
}

window.whepPlayer = playerPage();
