/**
 * The camera process's work, usable in-process by tests: one WHIP publisher per aircraft and the
 * camera link that drives them. The cameras publish only while the link is open, because the
 * stage ends every synthetic session when it closes: each time it opens (the first time, and
 * after the stage restarted) every camera publishes in a new session.
 */
import { randomUUID } from 'node:crypto';
import { issueParticipantToken } from '@tailcam/protocol/participant-token';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { SYNTHETIC_CAMERA_USER_ID, type CameraLinkMessage } from '../camera-link';
import { CameraPublisher, type CameraPublisherStats } from './camera-publisher';
import { CameraLinkClient } from './link-client';
import { silentLogger, type StageLogger } from '../stage-log';

/** A PUBLISH token is checked once, at the POST: it need not outlive the session. */
const PUBLISH_TOKEN_TTL_SECONDS = 300;

export interface CameraPublishersOptions {
  /** http://host:port of the stage process. */
  stageUrl: string;
  secret: Uint8Array;
  /** The aircraft to publish a synthetic camera for. */
  stageIds: readonly string[];
  /** `simulcast`: three encodings of each camera (simulcast.ts) rather than one. */
  camera: { width: number; height: number; fps: number; idleMs: number; simulcast?: boolean };
  log?: StageLogger;
}

export interface CameraProcessStats {
  link: 'open' | 'connecting';
  cameras: Record<string, CameraPublisherStats>;
  process: { cpuMicros: number; rssBytes: number; uptimeMs: number };
}

export interface RunningCameras {
  /** Ends every session (DELETE) and the link. */
  close(): Promise<void>;
  stats(): CameraProcessStats;
}

export function startCameraPublishers(options: CameraPublishersOptions): RunningCameras {
  const log = options.log ?? silentLogger();
  const stageBaseUrl = new URL('/stage', options.stageUrl).toString();
  const publishers = new Map<string, CameraPublisher>();
  for (const [position, stageId] of options.stageIds.entries()) {
    const index = STREAM_IDS.findIndex((streamId) => streamId === stageId);
    publishers.set(
      stageId,
      new CameraPublisher({
        stageId,
        streamIndex: index >= 0 ? index : position,
        camera: options.camera,
        whipUrl: new URL(`/stage/whip/${encodeURIComponent(stageId)}`, options.stageUrl),
        issueToken: () =>
          issueParticipantToken({
            secret: options.secret,
            participantId: randomUUID(),
            stageId,
            userId: SYNTHETIC_CAMERA_USER_ID,
            attributes: {},
            capabilities: { publish: true, subscribe: false },
            stageBaseUrl,
            ttlSeconds: PUBLISH_TOKEN_TTL_SECONDS,
          }),
        sendInBand: (message) => link.sendBinary(message),
        log,
      }),
    );
  }

  const onMessage = (message: CameraLinkMessage) => {
    if (message.type === 'sleep') {
      for (const publisher of publishers.values()) publisher.setAsleep(message.asleep);
      return;
    }
    const publisher = publishers.get(message.stageId);
    if (!publisher) return; // an aircraft this process does not publish
    if (message.type === 'demand') publisher.setDemand(message);
    else if (message.type === 'key-frame') publisher.requestKeyFrame();
    else publisher.setOnAir(message.onAir);
  };

  const link = new CameraLinkClient({
    stageUrl: options.stageUrl,
    secret: options.secret,
    onOpen: () => {
      for (const publisher of publishers.values()) publisher.publish();
    },
    onMessage,
    onClose: () => {
      for (const publisher of publishers.values()) void publisher.unpublish();
    },
    log,
  });
  link.start();

  return {
    close: async () => {
      await Promise.all([...publishers.values()].map((publisher) => publisher.close()));
      await link.close();
    },
    stats: () => {
      const cpu = process.cpuUsage();
      return {
        link: link.connected ? 'open' : 'connecting',
        cameras: Object.fromEntries(
          [...publishers].map(([stageId, publisher]) => [stageId, publisher.stats()]),
        ),
        process: {
          cpuMicros: cpu.user + cpu.system,
          rssBytes: process.memoryUsage.rss(),
          uptimeMs: Math.round(process.uptime() * 1000),
        },
      };
    },
  };
}
