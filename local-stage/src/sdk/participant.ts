/** Participant info and remote streams, shaped like the IVS SDK's. */
import type { LayerDescription } from '../signalling';
import { TypedEmitter } from './emitter';
import { RemoteStageStreamEvents, StageStreamLayerSelectedReason, StreamType } from './enums';
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

/** One simulcast layer of a remote video (IVS's StageStreamLayer: `label` is the layer's rid). */
export interface StageStreamLayer {
  label: string;
  bitrateBps: number;
  width: number;
  height: number;
  framesPerSecond: number;
  selected: boolean;
}

export type RemoteStageStreamEventMap = {
  [RemoteStageStreamEvents.LAYERS_CHANGED]: (layers: StageStreamLayer[]) => void;
  [RemoteStageStreamEvents.LAYER_SELECTED]: (
    layer: StageStreamLayer | undefined,
    reason: StageStreamLayerSelectedReason,
  ) => void;
  [RemoteStageStreamEvents.ADAPTION_CHANGED]: (adaption: boolean) => void;
  /** The local stage's own (not IVS's): the stage's adaptation of this video changed. */
  [VIDEO_ADAPTATION_CHANGED]: (adaptation: VideoAdaptation) => void;
};

/**
 * The local stage's adaptation of a video to this viewer's link (not in IVS's SDK: an app checks
 * for `getVideoAdaptation` before it uses it, docs/product.md#stage-sdk).
 */
export interface VideoAdaptation {
  /** Not even the lowest layer fits the viewer's link: the picture stays as it was. */
  videoPaused: boolean;
  /** The viewer's bandwidth as the stage estimates it, bits a second; undefined before one. */
  estimateBps: number | undefined;
}

/** The stream event told when its `VideoAdaptation` changes. */
export const VIDEO_ADAPTATION_CHANGED = 'VIDEO_ADAPTATION_CHANGED';

/** Higher quality first: by size, then bitrate, then frame rate (IVS's order). */
const byQuality = (a: StageStreamLayer, b: StageStreamLayer) =>
  b.width * b.height - a.width * a.height ||
  b.bitrateBps - a.bitrateBps ||
  b.framesPerSecond - a.framesPerSecond;

/**
 * A stream received from a remote participant (IVS's RemoteStageStream, the parts we have). A
 * video from a simulcast publisher has layers, as the stage tells them; one from a publisher of
 * one encoding has none.
 */
export class RemoteStageStream extends TypedEmitter<RemoteStageStreamEventMap> {
  readonly streamType: StreamType;
  readonly mediaStreamTrack: MediaStreamTrack;
  readonly participantInfo: StageParticipantInfo;
  isMuted = false;
  private adapting = true;
  private layers: StageStreamLayer[] = [];
  private selectedLabel: string | null = null;
  private adaptation: VideoAdaptation = { videoPaused: false, estimateBps: undefined };
  private readonly peer: RTCPeerConnection;
  /** The packet counts of the last quality reading: networkQuality is the loss since then. */
  private lastCount: PacketCount | undefined;

  constructor(
    track: MediaStreamTrack,
    participantInfo: StageParticipantInfo,
    peer: RTCPeerConnection,
  ) {
    super();
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

  /** True while the stage chooses the layer; false once the app has chosen one. */
  get isAdapting(): boolean {
    return this.adapting;
  }

  /** The layers arriving now, highest quality first (copies: the app may keep them). */
  getLayers = (): StageStreamLayer[] => this.layers.map((layer) => ({ ...layer }));
  getSelectedLayer = (): StageStreamLayer | undefined => {
    const selected = this.layers.find((layer) => layer.selected);
    return selected && { ...selected };
  };
  getLowestQualityLayer = (): StageStreamLayer | undefined => this.getLayers().at(-1);
  getHighestQualityLayer = (): StageStreamLayer | undefined => this.getLayers()[0];

  /** The stage's adaptation of this video to the viewer's link (the local stage's own). */
  getVideoAdaptation = (): VideoAdaptation => ({ ...this.adaptation });

  /** Cleans up the stream so that it emits no more events (as IVS's does). */
  cleanup(): void {
    this.removeAllListeners();
  }

  /** The stage's `layers` message (the SDK's own use). */
  layersArrived(layers: LayerDescription[]): void {
    this.layers = layers
      .map((layer) => ({
        label: layer.rid,
        bitrateBps: layer.bitrate,
        width: layer.width ?? 0,
        height: layer.height ?? 0,
        framesPerSecond: layer.frameRate,
        selected: layer.rid === this.selectedLabel,
      }))
      .sort(byQuality);
    this.emit(RemoteStageStreamEvents.LAYERS_CHANGED, this.getLayers());
  }

  /** The stage's `videoAdaptation` message (the SDK's own use). */
  adaptationArrived(videoPaused: boolean, estimate: number | null): void {
    this.adaptation = { videoPaused, estimateBps: estimate ?? undefined };
    this.emit(VIDEO_ADAPTATION_CHANGED, this.getVideoAdaptation());
  }

  /** The stage's `layerSelected` message (the SDK's own use). */
  layerSelected(label: string | null, adapting: boolean, reason: StageStreamLayerSelectedReason) {
    this.selectedLabel = label;
    for (const layer of this.layers) layer.selected = layer.label === label;
    if (adapting !== this.adapting) {
      this.adapting = adapting;
      this.emit(RemoteStageStreamEvents.ADAPTION_CHANGED, adapting);
    }
    this.emit(RemoteStageStreamEvents.LAYER_SELECTED, this.getSelectedLayer(), reason);
  }
}
