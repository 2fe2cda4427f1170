/** Parses the stage's messages in the browser (hand-written guards keep the bundle small). */
import type {
  IceCandidateMessage,
  LayerDescription,
  MediaKind,
  ParticipantDescription,
  StageErrorCategoryName,
  StageLeftReasonName,
  StageMessage,
} from '../signalling';
import { iceServersOf } from './token';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';

function participant(value: unknown): ParticipantDescription | null {
  if (!isRecord(value) || !isString(value.id) || !isString(value.userId)) return null;
  const attributes: Record<string, string> = {};
  if (isRecord(value.attributes)) {
    for (const [key, attribute] of Object.entries(value.attributes)) {
      if (isString(attribute)) attributes[key] = attribute;
    }
  }
  const media: MediaKind[] = Array.isArray(value.media)
    ? value.media.filter((kind): kind is MediaKind => kind === 'audio' || kind === 'video')
    : [];
  return {
    id: value.id,
    userId: value.userId,
    attributes,
    publishing: value.publishing === true,
    media,
  };
}

function candidate(value: unknown): IceCandidateMessage | null | undefined {
  if (value === null) return null;
  if (!isRecord(value) || !isString(value.candidate)) return undefined;
  return {
    candidate: value.candidate,
    sdpMid: isString(value.sdpMid) ? value.sdpMid : null,
    sdpMLineIndex: typeof value.sdpMLineIndex === 'number' ? value.sdpMLineIndex : null,
  };
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;
const size = (value: unknown): number | null => (isCount(value) ? value : null);

function layer(value: unknown): LayerDescription | null {
  if (!isRecord(value) || !isString(value.rid)) return null;
  return {
    rid: value.rid,
    width: size(value.width),
    height: size(value.height),
    bitrate: isCount(value.bitrate) ? value.bitrate : 0,
    frameRate: isCount(value.frameRate) ? value.frameRate : 0,
  };
}

const categories: readonly StageErrorCategoryName[] = [
  'JOIN_ERROR',
  'PUBLISH_ERROR',
  'SUBSCRIBE_ERROR',
];
const leftReasons: readonly StageLeftReasonName[] = [
  'unknown',
  'token-reused',
  'participant-disconnected',
  'stage-deleted',
];

/** The message in `text`, or null when it is not one the SDK knows. */
export function parseStageMessage(text: string): StageMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  switch (value.type) {
    case 'joined': {
      if (!isString(value.participantId) || !isString(value.stageId)) return null;
      const participants = Array.isArray(value.participants)
        ? value.participants.map(participant).filter((p): p is ParticipantDescription => p !== null)
        : [];
      return {
        type: 'joined',
        protocol: typeof value.protocol === 'number' ? value.protocol : 0,
        participantId: value.participantId,
        stageId: value.stageId,
        participants,
      };
    }
    case 'participantJoined': {
      const joined = participant(value.participant);
      return joined ? { type: 'participantJoined', participant: joined } : null;
    }
    case 'participantLeft':
      return isString(value.participantId)
        ? { type: 'participantLeft', participantId: value.participantId }
        : null;
    case 'offer':
      return isString(value.requestId) &&
        isString(value.subscriptionId) &&
        isString(value.participantId) &&
        isString(value.sdp)
        ? {
            type: 'offer',
            requestId: value.requestId,
            subscriptionId: value.subscriptionId,
            participantId: value.participantId,
            sdp: value.sdp,
            // Only well-formed entries; none at all keeps the token's servers (session.ts).
            ...(Array.isArray(value.iceServers) && iceServersOf(value.iceServers).length > 0
              ? { iceServers: iceServersOf(value.iceServers) }
              : {}),
          }
        : null;
    case 'candidate': {
      const parsed = candidate(value.candidate);
      return isString(value.subscriptionId) && parsed !== undefined
        ? { type: 'candidate', subscriptionId: value.subscriptionId, candidate: parsed }
        : null;
    }
    case 'subscriptionEnded':
      return isString(value.subscriptionId)
        ? {
            type: 'subscriptionEnded',
            subscriptionId: value.subscriptionId,
            reason: isString(value.reason) ? value.reason : 'unknown',
          }
        : null;
    case 'layers':
      return isString(value.subscriptionId) && Array.isArray(value.layers)
        ? {
            type: 'layers',
            subscriptionId: value.subscriptionId,
            layers: value.layers.map(layer).filter((each) => each !== null),
          }
        : null;
    case 'layerSelected':
      return isString(value.subscriptionId) && (isString(value.rid) || value.rid === null)
        ? {
            type: 'layerSelected',
            subscriptionId: value.subscriptionId,
            rid: value.rid,
            adapting: value.adapting !== false,
            reason: value.reason === 'unavailable' ? 'unavailable' : 'selected',
          }
        : null;
    case 'videoAdaptation':
      return isString(value.subscriptionId)
        ? {
            type: 'videoAdaptation',
            subscriptionId: value.subscriptionId,
            videoPaused: value.videoPaused === true,
            estimate: isCount(value.estimate) ? value.estimate : null,
          }
        : null;
    case 'error': {
      if (typeof value.code !== 'number') return null;
      const category = categories.find((name) => name === value.category);
      return {
        type: 'error',
        code: value.code,
        category: category ?? 'JOIN_ERROR',
        message: isString(value.message) ? value.message : '',
        ...(isString(value.details) ? { details: value.details } : {}),
        fatal: value.fatal === true,
        ...(isString(value.requestId) ? { requestId: value.requestId } : {}),
        ...(isString(value.subscriptionId) ? { subscriptionId: value.subscriptionId } : {}),
      };
    }
    case 'left': {
      const reason = leftReasons.find((name) => name === value.reason);
      return { type: 'left', reason: reason ?? 'unknown' };
    }
    default:
      return null;
  }
}
