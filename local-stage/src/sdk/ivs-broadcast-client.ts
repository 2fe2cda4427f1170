/**
 * The local stage's browser SDK: defines `window.IVSBroadcastClient` with the part of the
 * Amazon IVS Web Broadcast SDK's public API that Tailcam uses (served as /sdk/stage.js by the
 * API when STAGE_PROVIDER=local). Built as an IIFE by ../../build.mjs.
 */
import {
  InitialLayerPreference,
  RemoteStageStreamEvents,
  StageConnectionState,
  StageErrorCategory,
  StageErrorCode,
  StageEvents,
  StageLeftReason,
  StageParticipantPublishState,
  StageParticipantSubscribeState,
  StageStreamLayerSelectedReason,
  StageSubscribeStreamType,
  StreamType,
  SubscribeType,
} from './enums';
import { RemoteStageStream } from './participant';
import { Stage } from './stage';

export { Stage } from './stage';
export type { StageStrategy } from './stage';
export { StageError } from './errors';
export { RemoteStageStream } from './participant';
export type { StageParticipantInfo, StageStreamLayer } from './participant';

export const IVSBroadcastClient = Object.freeze({
  __version: '1.41.0-tailcam-local',
  isSupported: (): boolean => typeof RTCPeerConnection === 'function',
  Stage,
  StageEvents,
  StageConnectionState,
  SubscribeType,
  StageSubscribeStreamType,
  StreamType,
  StageLeftReason,
  StageErrorCategory,
  StageErrorCode,
  StageParticipantSubscribeState,
  StageParticipantPublishState,
  RemoteStageStream,
  RemoteStageStreamEvents,
  StageStreamLayerSelectedReason,
  InitialLayerPreference,
});

Object.defineProperty(globalThis, 'IVSBroadcastClient', {
  value: IVSBroadcastClient,
  writable: true,
  configurable: true,
  enumerable: true,
});
