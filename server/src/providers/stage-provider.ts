/** Where participant tokens come from: the offline local stage or Amazon IVS. One interface. */
import type { StreamId } from '@tailcam/protocol/streams';

export interface ParticipantTokenRequest {
  stageId: StreamId;
  userId: string;
  username: string;
  clientId: string;
  /** Base URL the browser reaches this server at, e.g. `https://tailcam.example` (no slash). */
  requestOrigin: string;
}

export interface StageProvider {
  readonly name: 'local' | 'ivs';
  createParticipantToken(request: ParticipantTokenRequest): Promise<string>;
}

/** A provider failure: `publicMessage` is safe to show to the viewer; `cause` goes to the log. */
export class StageProviderError extends Error {
  constructor(
    readonly publicMessage: string,
    options?: { cause?: unknown },
  ) {
    super(publicMessage, options);
    this.name = 'StageProviderError';
  }
}
