/**
 * The stage's loopback-only control surface as its callers see it: what `GET /_stats` answers
 * and the bodies the `/_faults/...` routes accept (http-server.ts). Tests, benchmarks and soaks
 * import these through `@tailcam/local-stage/control`, so their client cannot drift from the
 * stage. The API's `/_control/...` calls are in `@tailcam/protocol/stage-control`.
 */
import { z } from 'zod';

const layerStatsSchema = z.object({
  rid: z.string().nullable(),
  ssrc: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  bitrate: z.number(),
  frameRate: z.number(),
  /** Key frames opened in it. */
  keyFrames: z.number(),
  /** Frames received in it so far (marker bits). */
  frames: z.number(),
});
export type LayerStats = z.infer<typeof layerStatsSchema>;

const perStage = z.object({
  /** Whom the viewers see: a real encoder or the synthetic camera (null: nobody publishes). */
  publisher: z
    .object({
      kind: z.enum(['camera', 'encoder']),
      participantId: z.string(),
      video: z.string().nullable(),
      videoPackets: z.number(),
      /** Key frames opened in what it sent, and PLIs the stage sent it. */
      keyFrames: z.number(),
      plisSent: z.number(),
      /** Of the key frame requests that led to them, the viewers' own PLIs and FIRs. */
      viewerKeyFrameRequests: z.number(),
      viewers: z.number(),
      /**
       * Video frames sent on to each of its viewers so far, one entry a viewer (in the order they
       * came): against the layers' `frames`, whether every viewer gets the full frame rate.
       */
      framesForwarded: z.array(z.number()),
      /**
       * Each viewer's video, in the same order: its subscription's id, frames sent on, frames of
       * its layer (or the one it moves to) that came while its video was open, that layer's rid
       * (null: one encoding, none yet, or paused), whether its video is paused for a slow link
       * and how many times it has been. A viewer the per-viewer layers moved down gets its own
       * layer's full rate when the two counts keep together.
       */
      viewerVideo: z.array(
        z.object({
          id: z.string(),
          framesForwarded: z.number(),
          framesOffered: z.number(),
          layer: z.string().nullable(),
          paused: z.boolean(),
          pauses: z.number(),
        }),
      ),
      /**
       * The congestion feedback the stage has sent it (decisions 0066, 0079): transport-wide CC
       * messages and REMBs. The camera process's own cameras get no transport-wide CC.
       */
      feedback: z.object({ transportCc: z.number(), remb: z.number() }),
      /**
       * The stage's NACKs of its lost video packets (decision 0080): packets found missing, NACK
       * messages, the packets they asked for (each retry again), the asked packets that came, and
       * those given up on after four requests.
       */
      nacks: z.object({
        missing: z.number(),
        nacks: z.number(),
        packetsAsked: z.number(),
        recovered: z.number(),
        givenUp: z.number(),
      }),
      /**
       * Its video's layers (server/media/publisher/video-layers.ts): one per simulcast encoding,
       * highest first, else the one (`rid` null). Size from its key frames (VP8's header,
       * H.264's SPS), null before one; bitrate (bits a second of payload) and frame rate over the
       * last 2 s.
       */
      layers: z.array(layerStatsSchema),
    })
    .nullable(),
  camera: z.object({
    /**
     * The synthetic camera as the stage sees it: `live` while its video has viewers, `idle`
     * publishing with none, `absent` not publishing (camera process down or starting), `asleep`
     * not publishing because nobody watched for a while (decision 0074), `stopped` held off air
     * by a fault.
     */
    state: z.enum(['live', 'idle', 'absent', 'asleep', 'stopped']),
    viewers: z.number(),
  }),
  /** WHIP sessions whose ICE and DTLS are not done yet. */
  connectingPublishers: z.number(),
  audioListeners: z.number(),
  participants: z.number(),
  peerConnections: z.number(),
});

export const stageStatsSchema = z.object({
  sockets: z.number(),
  peerConnections: z.number(),
  stages: z.record(z.string(), perStage),
  participants: z.array(
    z.object({ participantId: z.string(), stageId: z.string(), peerConnections: z.number() }),
  ),
  /**
   * Players watching over WHEP (their peer connections are in `peerConnections` too), but for the
   * thumbnail process's sessions, counted in `thumbnailSessions` alone.
   */
  whepSessions: z.number(),
  thumbnailSessions: z.number(),
  /** Whether the synthetic cameras sleep: their WHIP sessions ended while nobody watches. */
  cameras: z.enum(['awake', 'asleep']),
  pendingJoinFailures: z.number(),
  /** performance.now() intervals from subscribe to connection, last 20 subscriptions. */
  recentConnectMs: z.array(z.number()),
  /** This process's CPU time so far (user + system, µs) and resident memory, for benchmarks. */
  process: z.object({ cpuMicros: z.number(), rssBytes: z.number(), uptimeMs: z.number() }),
});

export type StageStats = z.infer<typeof stageStatsSchema>;

const stageIdField = z.string().min(1).max(64);
const participantIdField = z.string().min(1).max(128);
const codeField = z.number().int().min(1).max(99);

export const faultBodies = {
  drop: z.object({
    participantId: participantIdField.optional(),
    stageId: stageIdField.optional(),
    peersOnly: z.boolean().optional(),
  }),
  camera: z.object({ stageId: stageIdField, action: z.enum(['stop', 'start', 'restart']) }),
  failNextJoin: z.object({
    stageId: stageIdField.optional(),
    code: codeField.optional(),
    message: z.string().max(500).optional(),
  }),
  stageError: z.object({
    participantId: participantIdField.optional(),
    stageId: stageIdField.optional(),
    message: z.string().max(500).optional(),
    code: codeField.optional(),
    category: z.enum(['JOIN_ERROR', 'PUBLISH_ERROR', 'SUBSCRIBE_ERROR']).optional(),
    fatal: z.boolean().optional(),
  }),
  restart: z.object({ hard: z.boolean().optional() }),
  /**
   * Drops `percent` of the RTP the stage sends to the matching viewers' subscriptions open now
   * (after the retransmission cache: NACKs recover them); 0 ends it. A restart clears it. With
   * `newSubscriptions` (no participantId), it applies to the stage's (or every stage's)
   * subscriptions opened from then on too, from their first packet, until the next such call:
   * a viewer who joins over a lossy link.
   */
  loss: z
    .object({
      participantId: participantIdField.optional(),
      stageId: stageIdField.optional(),
      percent: z.number().min(0).max(100),
      newSubscriptions: z.boolean().optional(),
    })
    .refine((loss) => !(loss.newSubscriptions && loss.participantId !== undefined), {
      message: 'newSubscriptions applies to a stage or every stage, not to one participant',
    }),
};

/** What `POST /_faults/loss` answers: the matching subscriptions and their video forwarding. */
export const lossAnswer = z.object({
  subscriptions: z.number(),
  dropped: z.number(),
  nacks: z.number(),
  retransmitted: z.number(),
  notCached: z.number(),
});
export type LossAnswer = z.infer<typeof lossAnswer>;

/**
 * `GET /_control/on-air?since=N&wait=S`: who is on air on each aircraft (as `/stage/health`'s
 * `publishers`), whether a person watches it (`watched`: a viewer's subscription to its video,
 * not the thumbnail process's or the recorder's; decision 0084) and the version of that answer;
 * with `since` the version the caller has, held up to `wait` seconds until it changes. The
 * recorder's long poll: it learns of a publisher, and of a person watching a synthetic camera, at
 * once without asking every second (decision 0078).
 */
export const ON_AIR_PATH = '/_control/on-air';
export const onAirAnswer = z.object({
  version: z.number().int().min(0),
  publishers: z.record(z.string(), z.enum(['camera', 'encoder', 'none'])),
  watched: z.record(z.string(), z.boolean()),
});
export type OnAirAnswer = z.infer<typeof onAirAnswer>;
