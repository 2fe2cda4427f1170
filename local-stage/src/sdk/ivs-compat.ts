/**
 * Compile-time checks that the local SDK and the Amazon IVS Web Broadcast SDK cannot drift:
 * the enum values are the same, the app's real-SDK-typed calls are accepted by the local
 * `Stage`, and what the local SDK hands back fits where the app expects the real types.
 * Nothing here runs; `npm run typecheck` fails when a check does.
 */
import type * as Real from 'amazon-ivs-web-broadcast';
import type * as Local from './ivs-broadcast-client';

type Api = typeof Local.IVSBroadcastClient;
type Rendered<E> = { -readonly [K in keyof E]: `${E[K] & (string | number)}` };
/** Mutually assignable: same keys, same values (renders numeric enum values as strings). */
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

export type EnumChecks = [
  Check<Equal<Rendered<typeof Real.StageEvents>, Rendered<Api['StageEvents']>>>,
  Check<Equal<Rendered<typeof Real.StageConnectionState>, Rendered<Api['StageConnectionState']>>>,
  Check<Equal<Rendered<typeof Real.SubscribeType>, Rendered<Api['SubscribeType']>>>,
  Check<
    Equal<Rendered<typeof Real.StageSubscribeStreamType>, Rendered<Api['StageSubscribeStreamType']>>
  >,
  Check<Equal<Rendered<typeof Real.StreamType>, Rendered<Api['StreamType']>>>,
  Check<Equal<Rendered<typeof Real.StageLeftReason>, Rendered<Api['StageLeftReason']>>>,
  Check<Equal<Rendered<typeof Real.StageErrorCategory>, Rendered<Api['StageErrorCategory']>>>,
  Check<Equal<Rendered<typeof Real.StageErrorCode>, Rendered<Api['StageErrorCode']>>>,
  Check<
    Equal<
      Rendered<typeof Real.StageParticipantSubscribeState>,
      Rendered<Api['StageParticipantSubscribeState']>
    >
  >,
  Check<
    Equal<
      Rendered<typeof Real.StageParticipantPublishState>,
      Rendered<Api['StageParticipantPublishState']>
    >
  >,
  Check<
    Equal<Rendered<typeof Real.RemoteStageStreamEvents>, Rendered<Api['RemoteStageStreamEvents']>>
  >,
  Check<
    Equal<
      Rendered<typeof Real.StageStreamLayerSelectedReason>,
      Rendered<Api['StageStreamLayerSelectedReason']>
    >
  >,
  Check<
    Equal<Rendered<typeof Real.InitialLayerPreference>, Rendered<Api['InitialLayerPreference']>>
  >,
];

// Every name the local SDK exports is one the real SDK exports too.
export type NameCheck = Check<
  Exclude<keyof Api, keyof typeof import('amazon-ivs-web-broadcast')> extends never ? true : false
>;

// The app's calls, typed with the real SDK, are accepted by the local Stage.
declare const realStrategy: Real.StageStrategy;
declare const token: string;
declare const LocalStage: Api['Stage'];
export const stageFromRealTypes = (): Local.Stage => new LocalStage(token, realStrategy);
export function realTypedUse(stage: Local.Stage, realEvents: typeof Real.StageEvents): void {
  const onState = (state: `${Real.StageConnectionState}`) => void state;
  stage.on(realEvents.STAGE_CONNECTION_STATE_CHANGED, onState);
  stage.off(realEvents.STAGE_CONNECTION_STATE_CHANGED, onState);
  const onStreams = (_info: { id: string }, streams: { mediaStreamTrack: MediaStreamTrack }[]) =>
    void streams;
  stage.on(realEvents.STAGE_PARTICIPANT_STREAMS_ADDED, onStreams);
  stage.on(
    realEvents.ERROR,
    (error: { message: string; code: number; name: string }) => void error,
  );
  stage.on(realEvents.STAGE_LEFT, (reason: `${Real.StageLeftReason}`) => void reason);
  const joined: Promise<void> = stage.join();
  void joined;
  stage.leave();
}

// What the local SDK hands out fits the real SDK's shapes (members the app may read).
type StreamMembers =
  | 'id'
  | 'mediaStreamTrack'
  | 'isMuted'
  | 'isAdapting'
  | 'requestRTCStats'
  | 'getStats'
  | 'requestQualityStats'
  | 'getLayers'
  | 'getSelectedLayer'
  | 'getLowestQualityLayer'
  | 'getHighestQualityLayer';
export type StreamShapeCheck = Check<
  Local.RemoteStageStream extends Pick<Real.RemoteStageStream, StreamMembers> ? true : false
>;
export type StreamTypeCheck = Check<
  Equal<`${Local.RemoteStageStream['streamType']}`, `${Real.StreamType}`>
>;
type InfoMembers = 'id' | 'userId' | 'attributes' | 'isLocal' | 'userInfo' | 'isPublishing';
export type InfoShapeCheck = Check<
  Local.StageParticipantInfo extends Pick<Real.StageParticipantInfo, InfoMembers> ? true : false
>;
export type ErrorShapeCheck = Check<
  Local.StageError extends Pick<Real.StageError, 'name' | 'message'> & { code: number }
    ? true
    : false
>;

// requestQualityStats' entries fit the real SDK's RemoteVideoStats and RemoteAudioStats (its
// NetworkQuality values are checked against the declarations in ivs-compat.test.ts).
type QualityEntry = NonNullable<
  Awaited<ReturnType<Local.RemoteStageStream['requestQualityStats']>>
>[number];
export type QualityStatsCheck = Check<
  QualityEntry extends Real.RemoteVideoStats & Real.RemoteAudioStats ? true : false
>;

// Simulcast layers: the layer object is the real StageStreamLayer, field for field.
export type LayerShapeCheck = Check<Equal<Local.StageStreamLayer, Real.StageStreamLayer>>;

// A strategy written against the real SDK's layer API is accepted whole by the local Stage, and
// the local stream's layer events carry what the real ones do.
declare const realLayerStrategy: Required<
  Pick<Real.StageStrategy, 'preferredLayerForStream' | 'subscribeConfiguration'>
> &
  Real.StageStrategy;
export const layerStrategyFromRealTypes = (): Local.Stage =>
  new LocalStage(token, realLayerStrategy);
export function realTypedLayerUse(
  stage: Local.Stage,
  stream: Local.RemoteStageStream,
  realEvents: typeof Real.StageEvents,
  realStreamEvents: typeof Real.RemoteStageStreamEvents,
): void {
  stage.on(
    realEvents.STAGE_STREAM_LAYER_SELECTED,
    (
      _info: { id: string },
      _stream: { getLayers(): Real.StageStreamLayer[] },
      layer: Real.StageStreamLayer | undefined,
      reason: `${Real.StageStreamLayerSelectedReason}`,
    ) => void [layer, reason],
  );
  stage.on(
    realEvents.STAGE_STREAM_LAYERS_CHANGED,
    (_info: unknown, _stream: unknown, layers: Real.StageStreamLayer[]) => void layers,
  );
  stream.on(realStreamEvents.LAYERS_CHANGED, (layers: Real.StageStreamLayer[]) => void layers);
  stream.on(
    realStreamEvents.LAYER_SELECTED,
    (layer: Real.StageStreamLayer | undefined, reason: `${Real.StageStreamLayerSelectedReason}`) =>
      void [layer, reason],
  );
  stream.on(realStreamEvents.ADAPTION_CHANGED, (adapting: boolean) => void adapting);
}

// In-band messages (decision 0094): the event hands the app IVS's `{ uuid, payload }`, and a
// strategy's `subscribeConfiguration` typed with the real SDK is one the local Stage takes.
export type SeiMessageCheck = Check<
  Equal<Real.SeiMessage, import('./in-band-receiver').SeiMessage>
>;
export type SeiEventCheck = Check<
  Parameters<
    import('./events').StageEventMap[typeof Real.StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED]
  >[1] extends Real.SeiMessage
    ? true
    : false
>;
export type SubscribeConfigurationCheck = Check<
  ReturnType<NonNullable<Real.StageStrategy['subscribeConfiguration']>> extends ReturnType<
    NonNullable<import('./stage').StageStrategy['subscribeConfiguration']>
  >
    ? true
    : false
>;
