/** What `GET /_stats` answers (src/control.ts): counts per stage and of the whole process. */
import type { LayerStats, StageStats } from '../../control';
import { isHigher } from '../media/publisher/video-layers';
import type { Publisher } from '../media/publisher/publisher';
import type { Subscription } from '../media/viewer/subscription';
import type { ViewerSession } from '../sessions/viewer-session';
import type { AircraftStage } from './aircraft-stage';

/** How long the last subscriptions took to connect: the newest 20. */
export class ConnectTimes {
  private readonly times: number[] = [];

  subscriptionClosed(subscription: Subscription): void {
    if (subscription.connectedAt === undefined) return;
    this.times.push(subscription.connectedAt - subscription.requestedAt);
    if (this.times.length > 20) this.times.shift();
  }

  get recentMs(): number[] {
    return this.times.map((ms) => Math.round(ms));
  }
}

/** Each viewer's video, read once: what it was sent (the older count) and all of it. */
function videoDeliveryStats(publisher: Publisher) {
  const deliveries = publisher.videoDeliveries;
  return {
    framesForwarded: deliveries.map((delivery) => delivery.framesForwarded),
    viewerVideo: deliveries,
  };
}

export function stageStats(input: {
  stages: Iterable<AircraftStage>;
  sessions: ReadonlySet<ViewerSession>;
  peerConnections: number;
  whepSessions: number;
  thumbnailSessions: number;
  camerasAsleep: boolean;
  pendingJoinFailures: number;
  connectTimes: ConnectTimes;
}): StageStats {
  const cpu = process.cpuUsage();
  const joined = [...input.sessions].filter((session) => session.state === 'joined');
  const stages: StageStats['stages'] = {};
  for (const stage of input.stages) {
    const viewers = joined.filter((session) => session.stageId === stage.stageId);
    const shown = stage.shown;
    stages[stage.stageId] = {
      publisher: shown
        ? {
            kind: shown.publisher.kind,
            participantId: shown.participantId,
            video: shown.publisher.video?.mimeType ?? null,
            videoPackets: shown.publisher.videoPackets,
            keyFrames: shown.publisher.keyFramesSeen,
            plisSent: shown.publisher.plisSent,
            viewerKeyFrameRequests: shown.publisher.viewerKeyFrameRequests,
            viewers: shown.publisher.videoListenerCount,
            ...videoDeliveryStats(shown.publisher),
            nacks: { ...shown.publisher.nacks },
            feedback: {
              transportCc: shown.publisher.congestion.counts.transportCcMessages,
              remb: shown.publisher.congestion.counts.rembMessages,
            },
            layers: layerStats(shown.publisher),
          }
        : null,
      camera: {
        state: !stage.cameraOnAir
          ? 'stopped'
          : !stage.camera
            ? input.camerasAsleep
              ? 'asleep'
              : 'absent'
            : stage.demand.video
              ? 'live'
              : 'idle',
        viewers: stage.camera?.videoListenerCount ?? 0,
      },
      connectingPublishers: [...stage.publishers.values()].filter(
        (publisher) => publisher.state === 'connecting',
      ).length,
      audioListeners: shown?.publisher.audioListenerCount ?? 0,
      participants: viewers.length,
      peerConnections: viewers.reduce((sum, session) => sum + session.peerConnectionCount, 0),
    };
  }
  return {
    sockets: input.sessions.size,
    peerConnections: input.peerConnections,
    stages,
    participants: joined.map((session) => ({
      participantId: session.participantId ?? '',
      stageId: session.stageId ?? '',
      peerConnections: session.peerConnectionCount,
    })),
    whepSessions: input.whepSessions,
    thumbnailSessions: input.thumbnailSessions,
    cameras: input.camerasAsleep ? 'asleep' : 'awake',
    pendingJoinFailures: input.pendingJoinFailures,
    recentConnectMs: input.connectTimes.recentMs,
    process: {
      cpuMicros: cpu.user + cpu.system,
      rssBytes: process.memoryUsage.rss(),
      uptimeMs: Math.round(process.uptime() * 1000),
    },
  };
}

/** A publisher's layers, highest first (by size where known, else by bitrate). */
function layerStats(publisher: Publisher): LayerStats[] {
  const now = performance.now();
  return [...publisher.layers.all]
    .sort((a, b) => (isHigher(a, b, now) ? -1 : isHigher(b, a, now) ? 1 : 0))
    .map((layer) => ({
      ...layer.figures(now),
      keyFrames: layer.keyFramesSeen,
      frames: publisher.videoFrames.get(layer.rid) ?? 0,
    }));
}
