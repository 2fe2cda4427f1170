/**
 * The enums of the Amazon IVS Web Broadcast SDK (1.41) that the local SDK exposes, with the real
 * SDK's values. ivs-compat.ts checks them against the package's declarations at compile time,
 * and ivs-compat.test.ts against its published declaration file at test time.
 */
import { STAGE_ERROR_CODES } from '../signalling';

export const StageEvents = {
  STAGE_CONNECTION_STATE_CHANGED: 'stageConnectionStateChanged',
  STAGE_PARTICIPANT_JOINED: 'stageParticipantJoined',
  STAGE_PARTICIPANT_LEFT: 'stageParticipantLeft',
  STAGE_PARTICIPANT_STREAMS_ADDED: 'stageParticipantStreamsAdded',
  STAGE_PARTICIPANT_STREAMS_REMOVED: 'stageParticipantStreamsRemoved',
  STAGE_STREAM_MUTE_CHANGED: 'stageStreamMuteChanged',
  STAGE_STREAM_SEI_MESSAGE_RECEIVED: 'stageStreamSeiMessageReceived',
  STAGE_STREAM_LAYERS_CHANGED: 'stageStreamLayersChanged',
  STAGE_STREAM_LAYER_SELECTED: 'stageStreamLayerSelected',
  STAGE_STREAM_ADAPTION_CHANGED: 'stageStreamAdaptionChanged',
  STAGE_PARTICIPANT_SUBSCRIBE_STATE_CHANGED: 'stageParticipantSubscribeStateChanged',
  STAGE_PARTICIPANT_PUBLISH_STATE_CHANGED: 'stageParticipantPublishStateChanged',
  STAGE_SUBSCRIBER_COUNT_CHANGED: 'stageSubscriberCountChanged',
  ERROR: 'error',
  STAGE_LEFT: 'stageLeft',
  STAGE_PARTICIPANT_METADATA_CHANGED: 'stageParticipantMetadataChanged',
  STAGE_PARTICIPANT_SUBTITLE_CUE_RECEIVED: 'stageParticipantSubtitleCueReceived',
} as const;
export type StageEvents = (typeof StageEvents)[keyof typeof StageEvents];

export const StageConnectionState = {
  DISCONNECTED: 'disconnected',
  CONNECTING: 'connecting',
  CONNECTED: 'connected',
  ERRORED: 'errored',
} as const;
export type StageConnectionState = (typeof StageConnectionState)[keyof typeof StageConnectionState];

export const SubscribeType = {
  NONE: 'none',
  AUDIO_ONLY: 'audio_only',
  AUDIO_VIDEO: 'audio_video',
} as const;
export type SubscribeType = (typeof SubscribeType)[keyof typeof SubscribeType];

export const StageSubscribeStreamType = {
  AUDIO: 'audio',
  VIDEO: 'video',
  SUBTITLES: 'subtitles',
} as const;
export type StageSubscribeStreamType =
  (typeof StageSubscribeStreamType)[keyof typeof StageSubscribeStreamType];

export const StreamType = {
  AUDIO: 'audio',
  VIDEO: 'video',
  SUBTITLE: 'subtitle',
} as const;
export type StreamType = (typeof StreamType)[keyof typeof StreamType];

export const StageLeftReason = {
  UNKNOWN: 'unknown',
  USER_INITIATED: 'user-initiated',
  TOKEN_REUSED: 'token-reused',
  PARTICIPANT_DISCONNECTED: 'participant-disconnected',
  STAGE_DELETED: 'stage-deleted',
  FAILED_EXCHANGE: 'failed-exchange',
  REAL_TIME_CONNECTION_FORCED_LEAVE: 'real-time-connection-forced-leave',
  REAL_TIME_CONNECTION_TOKEN_REVOCATION: 'real-time-connection-token-revocation',
} as const;
export type StageLeftReason = (typeof StageLeftReason)[keyof typeof StageLeftReason];

export const StageErrorCategory = {
  JOIN_ERROR: 'JOIN_ERROR',
  PUBLISH_ERROR: 'PUBLISH_ERROR',
  SUBSCRIBE_ERROR: 'SUBSCRIBE_ERROR',
} as const;
export type StageErrorCategory = (typeof StageErrorCategory)[keyof typeof StageErrorCategory];

/** The codes the stage sends (one list, in the signalling protocol), and the SDK's own two. */
export const StageErrorCode = {
  ...STAGE_ERROR_CODES,
  TOKEN_EXCHANGE_REQUEST_INVALID: 11,
  TOKEN_EXCHANGE_FAILED: 12,
} as const;
export type StageErrorCode = (typeof StageErrorCode)[keyof typeof StageErrorCode];

export const StageParticipantSubscribeState = {
  NOT_SUBSCRIBED: 'not_subscribed',
  ATTEMPTING_SUBSCRIBE: 'attempting_subscribe',
  SUBSCRIBED: 'subscribed',
  ERRORED: 'errored',
} as const;
export type StageParticipantSubscribeState =
  (typeof StageParticipantSubscribeState)[keyof typeof StageParticipantSubscribeState];

export const StageParticipantPublishState = {
  NOT_PUBLISHED: 'not_published',
  ATTEMPTING_PUBLISH: 'attempting_publish',
  PUBLISHED: 'published',
  ERRORED: 'errored',
} as const;
export type StageParticipantPublishState =
  (typeof StageParticipantPublishState)[keyof typeof StageParticipantPublishState];

export const RemoteStageStreamEvents = {
  LAYERS_CHANGED: 'LAYERS_CHANGED',
  LAYER_SELECTED: 'LAYER_SELECTED',
  ADAPTION_CHANGED: 'ADAPTION_CHANGED',
} as const;
export type RemoteStageStreamEvents =
  (typeof RemoteStageStreamEvents)[keyof typeof RemoteStageStreamEvents];

export const StageStreamLayerSelectedReason = {
  UNAVAILABLE: 'unavailable',
  SELECTED: 'selected',
} as const;
export type StageStreamLayerSelectedReason =
  (typeof StageStreamLayerSelectedReason)[keyof typeof StageStreamLayerSelectedReason];

export const InitialLayerPreference = {
  LOWEST_QUALITY: 'lowest_quality',
  HIGHEST_QUALITY: 'highest_quality',
} as const;
export type InitialLayerPreference =
  (typeof InitialLayerPreference)[keyof typeof InitialLayerPreference];
