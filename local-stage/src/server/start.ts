/**
 * Builds and starts a local stage on a port; used by main.ts and by the tests. It listens first
 * (its health answers 503 "starting" meanwhile), then runs the stage's self-check, and resolves
 * once that is done, whatever it found: `stage.health()` says.
 */
import type { AddressInfo } from 'node:net';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { turnIceServers, type TurnSettings } from '@tailcam/protocol/turn';
import { createStageServer } from './http/http-server';
import { interfacesPeerNetwork, type PeerNetwork } from './media/transport/peer-network';
import type { PublishMaxKbps } from './media/publisher/publish-max-bitrate';
import { LocalStage, type LocalStageOptions } from './stage/local-stage';

export interface RunningStage {
  /** http://host:port of the stage process (no path). */
  url: string;
  stage: LocalStage;
  close(): Promise<void>;
}

export async function startLocalStage(options: {
  host: string;
  port: number;
  secret: Uint8Array;
  faultsEnabled: boolean;
  /** The aircraft the camera process publishes a synthetic camera for (default: none). */
  syntheticCameras?: readonly string[];
  limits?: LocalStageOptions['limits'];
  requestTimeoutMs?: number;
  /** Wait for the API's table of token generations (the stage process does; see LocalStage). */
  awaitTokenGenerations?: boolean;
  log?: LocalStageOptions['log'];
  onExitRequested?: () => void;
  /** What its peer connections announce (default: the interfaces' addresses, any port). */
  network?: PeerNetwork;
  /**
   * A TURN server whose short-lived credentials WHIP/WHEP clients get with the 201 (decision
   * 0063). The stage's own peer connections use none: it is an ICE lite agent that the TURN
   * server, like every peer, must reach at its own addresses.
   */
  turn?: TurnSettings;
  /** Each aircraft's publisher cap, sent as REMB (`STAGE_PUBLISH_MAX_KBPS`); none by default. */
  publishMaxKbps?: PublishMaxKbps;
  /** The synthetic cameras sleep after this long with nobody watching; unset or 0: never. */
  cameraSleepAfterMs?: number;
}): Promise<RunningStage> {
  const network = options.network ?? (await interfacesPeerNetwork());
  await network.open();
  const iceServersFor = (userId: string) =>
    options.turn === undefined ? [] : turnIceServers(options.turn, userId);
  const stage = new LocalStage({
    iceServersFor,
    network,
    stageIds: STREAM_IDS,
    secret: options.secret,
    syntheticCameras: options.syntheticCameras ?? [],
    limits: options.limits,
    awaitTokenGenerations: options.awaitTokenGenerations,
    log: options.log,
    publishMaxKbps: options.publishMaxKbps,
    cameraSleepAfterMs: options.cameraSleepAfterMs,
  });
  const server = createStageServer({
    stage,
    secret: options.secret,
    faultsEnabled: options.faultsEnabled,
    requestTimeoutMs: options.requestTimeoutMs,
    onExitRequested: options.onExitRequested,
    iceServersFor,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    stage.close();
    await network.close();
    throw error;
  }
  await stage.selfCheck();
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    stage,
    close: async () => {
      stage.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await network.close();
    },
  };
}
