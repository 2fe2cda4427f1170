/** The IVS Stage event map, with the events the local stage never raises typed loosely. */
import type {
  StageConnectionState,
  StageEvents,
  StageLeftReason,
  StageParticipantSubscribeState,
  StageStreamLayerSelectedReason,
} from './enums';
import type { StageError } from './errors';
import type { SeiMessage } from './in-band-receiver';
import type {
  RemoteStageStream,
  StageParticipantInfo as Info,
  StageStreamLayer,
} from './participant';

export type StageEventMap = {
  [StageEvents.STAGE_CONNECTION_STATE_CHANGED]: (state: StageConnectionState) => void;
  [StageEvents.STAGE_PARTICIPANT_JOINED]: (participant: Info) => void;
  [StageEvents.STAGE_PARTICIPANT_LEFT]: (participant: Info) => void;
  [StageEvents.STAGE_PARTICIPANT_STREAMS_ADDED]: (
    participant: Info,
    streams: RemoteStageStream[],
  ) => void;
  [StageEvents.STAGE_PARTICIPANT_STREAMS_REMOVED]: (
    participant: Info,
    streams: RemoteStageStream[],
  ) => void;
  [StageEvents.STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED]: (
    participant: Info,
    state: StageParticipantSubscribeState,
  ) => void;
  [StageEvents.ERROR]: (error: StageError) => void;
  [StageEvents.STAGE_LEFT]: (reason: StageLeftReason) => void;
  [StageEvents.STAGE_PARTICIPANT_PUBLISH_STATE_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_MUTE_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_STREAM_SEI_MESSAGE_RECEIVED]: (participant: Info, message: SeiMessage) => void;
  [StageEvents.STAGE_STREAM_LAYERS_CHANGED]: (
    participant: Info,
    stream: RemoteStageStream,
    layers: StageStreamLayer[],
  ) => void;
  [StageEvents.STAGE_STREAM_LAYER_SELECTED]: (
    participant: Info,
    stream: RemoteStageStream,
    layer: StageStreamLayer | undefined,
    reason: StageStreamLayerSelectedReason,
  ) => void;
  [StageEvents.STAGE_STREAM_ADAPTION_CHANGED]: (
    participant: Info,
    stream: RemoteStageStream,
    adaption: boolean,
  ) => void;
  [StageEvents.STAGE_SUBSCRIBER_COUNT_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_PARTICIPANT_METADATA_CHANGED]: (...args: unknown[]) => void;
  [StageEvents.STAGE_PARTICIPANT_SUBTITLE_CUE_RECEIVED]: (...args: unknown[]) => void;
};

/** The Stage's own `emit`, lent to the layers under it. */
export type EmitStageEvent = <E extends keyof StageEventMap>(
  event: E,
  ...args: Parameters<StageEventMap[E]>
) => void;
