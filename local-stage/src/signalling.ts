/**
 * The local stage's signalling protocol: JSON messages over the WebSocket at the participant
 * token's `events_url` (`/stage/events`). Shared by the stage process and the browser SDK; it has
 * no dependencies so that it bundles into the SDK. The stage parses what it receives with zod
 * (server/signalling-schema.ts); the SDK with the guards in sdk/messages.ts.
 *
 * One socket per joined participant. The first message is `join`; the stage answers `joined`
 * (or `error` and closes); a join with `offers` also gets an `offer` for each publisher there
 * right after `joined`. Subscribing is one round trip plus trickled candidates: the SDK sends
 * `subscribe`, the stage answers with an `offer` (send-only media), the SDK replies `answer`, and
 * both sides trickle `candidate`s. See docs/decisions/0020-local-stage-signalling.md.
 */

/** The media kinds a local stage participant publishes. */
export type MediaKind = 'audio' | 'video';

export interface ParticipantDescription {
  id: string;
  userId: string;
  attributes: Record<string, string>;
  /** Whether the participant publishes media (the cameras do; viewers do not). */
  publishing: boolean;
  /** The kinds of media published; a subscriber gets the intersection with what it asks for. */
  media: MediaKind[];
}

export interface IceCandidateMessage {
  candidate: string;
  sdpMid: string | null;
  sdpMLineIndex: number | null;
}

/** A local candidate as the `candidate` message carries it (null: the end of candidates). */
export function iceCandidateMessage(
  candidate: IceCandidateMessage | null | undefined,
): IceCandidateMessage | null {
  return candidate
    ? {
        candidate: candidate.candidate,
        sdpMid: candidate.sdpMid,
        sdpMLineIndex: candidate.sdpMLineIndex,
      }
    : null;
}

/**
 * One simulcast layer of a publisher's video, as a subscribed viewer is told of it. `rid` is the
 * publisher's RTP stream id (IVS's `StageStreamLayer.label`); sizes are null before its first key
 * frame; `bitrate` (bits a second) and `frameRate` are measured over the last 2 s.
 */
export interface LayerDescription {
  rid: string;
  width: number | null;
  height: number | null;
  bitrate: number;
  frameRate: number;
}

/** Why a viewer gets the layer it gets (IVS's StageStreamLayerSelectedReason values). */
export type LayerSelectedReason = 'selected' | 'unavailable';

/** Which layer a new subscription starts on (IVS's InitialLayerPreference values). */
export type InitialLayerName = 'lowest_quality' | 'highest_quality';

/** Error categories and codes mirror the IVS SDK's StageErrorCategory / StageErrorCode. */
export type StageErrorCategoryName = 'JOIN_ERROR' | 'PUBLISH_ERROR' | 'SUBSCRIBE_ERROR';

export const STAGE_ERROR_CODES = {
  TOKEN_MALFORMED: 1,
  TOKEN_EXPIRED: 2,
  TIMEOUT: 3,
  FAILED: 4,
  CANCELED: 5,
  STAGE_AT_CAPACITY: 6,
  CODEC_MISMATCH: 7,
  TOKEN_NOT_ALLOWED: 8,
  STAGE_DELETED: 9,
  PARTICIPANT_DISCONNECTED: 10,
} as const;

/** The messages IVS's SDK uses for each code; `[CATEGORY] ` is prefixed by the SDK. */
export const STAGE_ERROR_MESSAGES: Record<number, string> = {
  1: 'Token is malformed',
  2: 'Token expired and is no longer valid',
  3: 'Operation timed out',
  4: 'Operation failed',
  5: 'Operation canceled',
  6: 'Stage at capacity',
  7: 'Client codec is not supported',
  8: 'Token not allowed to perform operation',
  9: 'Stage has been deleted, unable to join',
  10: 'Participant has been disconnected, unable to join',
};

/** Why the stage ended a session on its side (IVS's StageLeftReason values). */
export type StageLeftReasonName =
  'unknown' | 'token-reused' | 'participant-disconnected' | 'stage-deleted';

/** The requestId of the offer a join asked for with `offers` (see the `join` message). */
export const joinedOfferRequestId = (publisherId: string): string => `joined:${publisherId}`;

/** Subscriptions one session may hold at once. */
export const MAX_SUBSCRIPTIONS = 4;

/**
 * The participants of `joined` whose offers follow it when the join asked for `offers`: the
 * publishers, in order, as many as a session may subscribe to.
 */
export function joinedOfferPublishers<T extends { publishing: boolean }>(
  participants: readonly T[],
): T[] {
  return participants.filter((each) => each.publishing).slice(0, MAX_SUBSCRIPTIONS);
}

export type ClientMessage =
  | {
      type: 'join';
      token: string;
      /**
       * Offer a subscription to every publisher on the stage with `joined`, without waiting for
       * its `subscribe`: these media of what it sends, each offer's requestId
       * `joinedOfferRequestId(publisher)`. Saves a round trip of the join (decision
       * 0076). The SDK takes an offer its strategy wants as it is and unsubscribes any other.
       * `standby`: those subscriptions are on standby (see `subscribe`).
       */
      offers?: { audio: boolean; video: boolean; standby?: true };
    }
  | {
      type: 'subscribe';
      requestId: string;
      participantId: string;
      media: { audio: boolean; video: boolean };
      /** The layer the video starts on (default: the highest arriving). */
      initialLayer?: InitialLayerName;
      /**
       * On standby (decision 0112): offered and connected as any other (its camera drawing for
       * it), but the stage sends none of the publisher's media until `resume`.
       */
      standby?: true;
    }
  /** Starts a standby subscription's media: its first key frame is asked for at once. */
  | { type: 'resume'; subscriptionId: string }
  /** The layer the viewer prefers for a subscription's video; null: the stage chooses. */
  | { type: 'preferLayer'; subscriptionId: string; rid: string | null }
  /** `inBandMessaging`: the SDK reads in-band messages, so the stage may add VP8 trailers (decision 0094). */
  | { type: 'answer'; subscriptionId: string; sdp: string; inBandMessaging?: true }
  | { type: 'candidate'; subscriptionId: string; candidate: IceCandidateMessage | null }
  | { type: 'unsubscribe'; subscriptionId: string }
  | { type: 'leave' };

/** A TURN server with its short-lived credential (the participant token's `ice_servers` entry). */
export interface OfferedIceServer {
  urls: string[];
  username: string;
  credential: string;
}

export type StageMessage =
  | {
      type: 'joined';
      protocol: number;
      participantId: string;
      stageId: string;
      participants: ParticipantDescription[];
    }
  | { type: 'participantJoined'; participant: ParticipantDescription }
  | { type: 'participantLeft'; participantId: string }
  | {
      type: 'offer';
      requestId: string;
      subscriptionId: string;
      participantId: string;
      sdp: string;
      /**
       * TURN servers with a credential made for this offer's peer connection (decision 0063):
       * fresh whenever the SDK makes one, so a credential shorter than the session never
       * leaves a later subscription without a relay. Absent without TURN.
       */
      iceServers?: OfferedIceServer[];
    }
  | { type: 'candidate'; subscriptionId: string; candidate: IceCandidateMessage | null }
  | { type: 'subscriptionEnded'; subscriptionId: string; reason: string }
  /**
   * A simulcast publisher's layers arriving now, highest first, for a subscription to it (sent
   * when the set or a size changes; a publisher of one encoding has none to tell).
   */
  | { type: 'layers'; subscriptionId: string; layers: LayerDescription[] }
  /**
   * The layer the stage now sends a subscription (null: none arriving). `adapting`: chosen by the
   * stage (no preference); `reason` is `unavailable` when the preferred layer is not arriving.
   */
  | {
      type: 'layerSelected';
      subscriptionId: string;
      rid: string | null;
      adapting: boolean;
      reason: LayerSelectedReason;
    }
  /**
   * The stage's adaptation of a subscription's video to the viewer's link (the local stage's own,
   * not IVS's): `videoPaused` while not even the lowest layer fits (the viewer keeps its last
   * picture; audio goes on), `estimate` the viewer's bandwidth as the stage estimates it, bits a
   * second (null: none yet). Sent when the pause changes, and when the estimate moves, at most
   * once a second.
   */
  | {
      type: 'videoAdaptation';
      subscriptionId: string;
      videoPaused: boolean;
      estimate: number | null;
    }
  | {
      type: 'error';
      code: number;
      category: StageErrorCategoryName;
      /**
       * What the SDK's StageError says after `[CATEGORY] `. For a refused join, IVS's text for
       * the code (or a fault's own message); mid-session, empty when the stage gives none (the
       * app then shows its own text).
       */
      message: string;
      /** Why exactly, for developers (the SDK's StageError.details). */
      details?: string;
      /** A fatal error ends the session; the stage closes the socket after sending it. */
      fatal: boolean;
      /** The subscribe request it refuses, if it does. */
      requestId?: string;
      /** The subscription whose layer preference it refuses, if it does. */
      subscriptionId?: string;
    }
  | { type: 'left'; reason: StageLeftReasonName };

/** WebSocket close codes the stage uses (4000-4999 are free for applications). */
export const CLOSE_CODES = {
  /** The participant left, or the stage ended the session with a `left` message. */
  normal: 1000,
  /** The stage refused the join (after an `error` message). */
  joinRefused: 4001,
  /** The client broke the protocol. */
  protocolError: 4002,
} as const;
