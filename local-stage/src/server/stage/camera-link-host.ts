/**
 * The stage's end of the camera process's link (../../camera-link.ts; http-server.ts checks who
 * opens it): the newest link is the one. A new link is told whether the cameras sleep, every
 * stage's demand and which cameras a fault holds off air; a link that closes ends the camera sessions at once, rather than
 * when their peers time out, so that viewers see the streams removed.
 */
import type { WebSocket } from 'ws';
import { MAX_PAYLOAD_BYTES, MAX_REPEAT_COUNT } from '../../codecs/in-band';
import { parseCameraInBandMessage, type CameraLinkMessage } from '../../camera-link';
import type { AircraftStage } from './aircraft-stage';

export class CameraLinkHost {
  private link: WebSocket | undefined;

  constructor(
    private readonly stages: ReadonlyMap<string, AircraftStage>,
    private readonly camerasAsleep: () => boolean,
  ) {}

  accept(socket: WebSocket): void {
    const previous = this.link;
    this.link = socket;
    previous?.close(1000, 'replaced');
    send(socket, { type: 'sleep', asleep: this.camerasAsleep() });
    for (const stage of this.stages.values()) {
      if (!stage.cameraOnAir) {
        send(socket, { type: 'on-air', stageId: stage.stageId, onAir: false });
      }
      send(socket, { type: 'demand', stageId: stage.stageId, ...stage.demand });
    }
    // The camera's in-band messages (decision 0094), for its aircraft's camera publisher.
    socket.on('message', (data, isBinary) => {
      if (!isBinary || this.link !== socket) return;
      const message = parseCameraInBandMessage(Buffer.from(data as Buffer));
      if (!message || message.payload.length > MAX_PAYLOAD_BYTES) return;
      const stage = this.stages.get(message.stageId);
      for (const publisher of stage?.publishers.values() ?? []) {
        if (publisher.kind !== 'camera') continue;
        publisher.insertInBandMessage(
          { uuid: message.uuid, payload: message.payload },
          message.captureTimeMs,
          Math.min(message.repeatCount, MAX_REPEAT_COUNT),
        );
      }
    });
    socket.on('close', () => {
      if (this.link !== socket) return;
      this.link = undefined;
      // The camera process is gone (crashed, or restarting).
      for (const stage of this.stages.values()) {
        stage.closePublishers('camera-process-gone', 'camera');
      }
    });
  }

  /** Sent while the link is up; the camera process learns the state anew when it reconnects. */
  send(message: CameraLinkMessage): void {
    if (this.link) send(this.link, message);
  }

  close(): void {
    this.link?.close(1001, 'stage closing');
  }
}

function send(socket: WebSocket, message: CameraLinkMessage): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}
