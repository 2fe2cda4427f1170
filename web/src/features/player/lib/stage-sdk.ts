/**
 * The stage SDK is a global script loaded outside the app (docs/product.md#stage-sdk): the real
 * Amazon IVS Web Broadcast SDK in production, the local stage's SDK offline. Its types come from
 * the real package (type-only: nothing of it is bundled), so a misuse of the real SDK fails tsc.
 */
import type * as IvsSdk from 'amazon-ivs-web-broadcast';

/** The part of the SDK's public API the player uses. */
export type StageSdk = Pick<
  typeof IvsSdk,
  | 'Stage'
  | 'StageEvents'
  | 'StageConnectionState'
  | 'SubscribeType'
  | 'StageSubscribeStreamType'
  | 'StreamType'
>;

export type Stage = IvsSdk.Stage;
export type StageStream = IvsSdk.StageStream;
export type StageStrategy = IvsSdk.StageStrategy;
export type StageConnectionState = IvsSdk.StageConnectionState;
export type StageError = IvsSdk.StageError;
export type StageParticipantInfo = IvsSdk.StageParticipantInfo;
export type RemoteStageStream = IvsSdk.RemoteStageStream;
export type StageStreamLayer = IvsSdk.StageStreamLayer;
export type StageConfiguration = IvsSdk.StageConfiguration;
/** An in-band message of a video frame (H.264 SEI on IVS; the local stage's carriage too). */
export type SeiMessage = IvsSdk.SeiMessage;

declare global {
  interface Window {
    IVSBroadcastClient?: StageSdk;
  }
}

export function getStageSdk(): StageSdk | undefined {
  return window.IVSBroadcastClient;
}

/**
 * Whether the SDK can hold a join's video on standby (the local stage's, decision 0112). The real
 * SDK cannot: a join there would subscribe at the click all the same, and IVS bills a participant
 * from its join, so the app joins nothing on standby with it.
 */
export function sdkHasStandby(): boolean {
  const sdk = getStageSdk();
  return sdk !== undefined && 'supportsStandby' in sdk.Stage;
}

/**
 * Publishes nothing and subscribes to the video of every participant, never audio
 * (docs/product.md#player-states), once `shown()` (before: nothing, a join on standby, decision
 * 0112); its video's layer is `preferredLayer()` (a label; null: the stage chooses,
 * docs/product.md#quality). It asks for the video's in-band messages, the aircraft's flight data
 * (docs/product.md#flight-data).
 */
export function createViewerStrategy(
  sdk: StageSdk,
  preferredLayer: () => string | null = () => null,
  shown: () => boolean = () => true,
): StageStrategy {
  return {
    stageStreamsToPublish: () => [],
    shouldPublishParticipant: () => false,
    shouldSubscribeToParticipant: () =>
      shown() ? [sdk.StageSubscribeStreamType.VIDEO] : sdk.SubscribeType.NONE,
    preferredLayerForStream: () => preferredLayer(),
    subscribeConfiguration: () => ({ inBandMessaging: { enabled: true } }),
  };
}

/**
 * The player's Stage configuration. It tells the local stage's SDK what the viewer strategy
 * answers for every publisher (`subscribeOnJoin`, a local option the real SDK ignores), so the
 * stage sends the video's offer along with the join, a round trip sooner (decision 0076). On
 * `standby`, that video is connected and held by the stage until the strategy asks for it
 * (decision 0112; the real SDK subscribes then).
 */
export function viewerStageConfiguration(sdk: StageSdk, standby = false): StageConfiguration {
  const configuration: StageConfiguration & {
    subscribeOnJoin: IvsSdk.StageSubscribeStreamType[];
    standby?: boolean;
  } = { subscribeOnJoin: [sdk.StageSubscribeStreamType.VIDEO], ...(standby && { standby }) };
  return configuration;
}
