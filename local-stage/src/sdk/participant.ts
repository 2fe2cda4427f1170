/** Participant info and remote streams, shaped like the IVS SDK's. */
import { StreamType } from './enums';
import { qualityStats, type PacketCount, type RemoteStats } from './quality-stats';

export type StageParticipantCapability = 'publish' | 'subscribe';

export interface StageParticipantInfo {
  readonly id: string;
  readonly userId: string;
  readonly attributes: Record<string, unknown>;
  readonly capabilities: Set<StageParticipantCapability>;
  readonly isLocal: boolean;
  readonly userInfo: Record<string, unknown>;
  videoStopped: boolean;
  audioMuted: boolean;
  isPublishing: boolean;
}

/** A stream received from a remote participant (IVS's RemoteStageStream, the parts we have). */
export class RemoteStageStream {
  readonly streamType: StreamType;
  readonly mediaStreamTrack: MediaStreamTrack;
  readonly participantInfo: StageParticipantInfo;
  isMuted = false;
  readonly isAdapting = false;
  private readonly peer: RTCPeerConnection;
  /** The packet counts of the last quality reading: networkQuality is the loss since then. */
  private lastCount: PacketCount | undefined;

  constructor(
    track: MediaStreamTrack,
    participantInfo: StageParticipantInfo,
    peer: RTCPeerConnection,
  ) {
    this.mediaStreamTrack = track;
    this.streamType = track.kind === 'audio' ? StreamType.AUDIO : StreamType.VIDEO;
    this.participantInfo = participantInfo;
    this.peer = peer;
  }

  /** The MediaStreamTrack's id, as in IVS. */
  get id(): string {
    return this.mediaStreamTrack.id;
  }

  requestRTCStats = async (): Promise<RTCStatsReport | undefined> => {
    if (this.peer.connectionState === 'closed') return undefined;
    return this.peer.getStats(this.mediaStreamTrack);
  };

  /** @deprecated in IVS too; kept for code written against older versions. */
  getStats = (): Promise<RTCStatsReport | undefined> => this.requestRTCStats();

  /** One entry, this stream's receiver (IVS returns one per layer; the local stage sends one). */
  requestQualityStats = async (): Promise<RemoteStats[] | undefined> => {
    const report = await this.requestRTCStats();
    const reading = report && qualityStats(report, this.mediaStreamTrack.kind, this.lastCount);
    if (!reading) return undefined;
    this.lastCount = reading.count;
    return [reading.stats];
  };

  setMuted = (_muted: boolean): void => undefined;

  // The local stage sends one layer: no simulcast layers to list or select.
  getLayers = (): never[] => [];
  getSelectedLayer = (): undefined => undefined;
  getLowestQualityLayer = (): undefined => undefined;
  getHighestQualityLayer = (): undefined => undefined;

  on(_event: string, _callback: (...args: unknown[]) => void): void {}
  off(_event: string, _callback: (...args: unknown[]) => void): void {}
  hasListenersFor(_event: string): boolean {
    return false;
  }
  cleanup(): void {}
}
