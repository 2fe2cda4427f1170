/**
 * Pages on origins of their own (not the app's) with third-party clients from npm: Eyevinn's WHIP
 * client publishing the browser's camera (page/whip-publisher-page.ts) and Eyevinn's WHEP player
 * (page/whep-player-page.ts), each driven from the test through its `window` object.
 */
import type { Page } from '@playwright/test';
import type { WhepPlayerPage } from './page/whep-player-page';
import type {
  PublisherState,
  SimulcastOptions,
  WhipPublisherPage,
} from './page/whip-publisher-page';
import { SEI_SENDER_WORKER_PATH } from './page/sei-sender';
import { servePage, type ServedPage } from './page-scripts';

export type { PublisherState, SimulcastOptions, WhepPlayerPage, WhipPublisherPage };

/** Serves the WHIP publisher page on 127.0.0.1:`port` (0: any free port). */
export function servePublisherPage(port = 0): Promise<ServedPage> {
  return servePage('harness/src/page/whip-publisher-page.ts', 'WHIP publisher', port, {
    [SEI_SENDER_WORKER_PATH]: 'harness/src/page/sei-sender-worker.ts',
  });
}

/** Serves the WHEP player page on 127.0.0.1:`port` (0: any free port). */
export function servePlayerPage(port = 0): Promise<ServedPage> {
  return servePage('harness/src/page/whep-player-page.ts', 'WHEP player', port);
}

/** The WHIP client of a page showing servePublisherPage's URL, driven from Node. */
export interface WhipPublisher {
  start(options: Parameters<WhipPublisherPage['start']>[0]): Promise<void>;
  state(): Promise<PublisherState>;
  insertSeiMessage(payloadHex: string, options?: { repeatCount?: number }): Promise<void>;
  setEncodingActive(rid: string, active: boolean): Promise<void>;
  stop(): Promise<void>;
}

export function whipPublisher(page: Page): WhipPublisher {
  return {
    start: (options) => page.evaluate((given) => window.whipPublisher.start(given), options),
    state: () => page.evaluate(() => window.whipPublisher.state()),
    insertSeiMessage: (payloadHex, options) =>
      page.evaluate(
        (given) => window.whipPublisher.insertSeiMessage(given.payloadHex, given.options),
        {
          payloadHex,
          options,
        },
      ),
    setEncodingActive: (rid, active) =>
      page.evaluate((given) => window.whipPublisher.setEncodingActive(given.rid, given.active), {
        rid,
        active,
      }),
    stop: () => page.evaluate(() => window.whipPublisher.stop()),
  };
}

/** The WHEP player of a page showing servePlayerPage's URL, driven from Node. */
export function whepPlayer(page: Page): WhepPlayerPage {
  return {
    start: (options) => page.evaluate((given) => window.whepPlayer.start(given), options),
    stop: () => page.evaluate(() => window.whepPlayer.stop()),
  };
}
