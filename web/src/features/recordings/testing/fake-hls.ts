/**
 * hls.js faked for unit tests (the real one needs Media Source Extensions, which jsdom has not):
 * it keeps what it is given (its config, the playlists loaded, the video) and emits what a test
 * tells it to. A test mocks `hls.js/light` with it and empties `FakeHls.created` before each case.
 */
import { vi } from 'vitest';

type Listener = (event: string, data: { fatal: boolean; type: string }) => void;

export class FakeHls {
  static Events = { ERROR: 'hlsError', FRAG_LOADED: 'hlsFragLoaded', MANIFEST_PARSED: 'parsed' };
  static ErrorTypes = { NETWORK_ERROR: 'networkError', MEDIA_ERROR: 'mediaError' };
  static isSupported = () => true;
  /** Every one made, in order. */
  static readonly created: FakeHls[] = [];
  sources: string[] = [];
  media: HTMLMediaElement | undefined;
  destroyed = false;
  private readonly listeners = new Map<string, Listener[]>();

  constructor(
    readonly config: {
      startPosition?: number;
      xhrSetup: (xhr: XMLHttpRequest, url: string) => void;
    },
  ) {
    FakeHls.created.push(this);
  }
  loadSource(url: string) {
    this.sources.push(url);
  }
  attachMedia(media: HTMLMediaElement) {
    this.media = media;
  }
  on(event: string, listener: Listener) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  once(event: string, listener: Listener) {
    this.on(event, listener);
  }
  emit(event: string, data: { fatal: boolean; type: string }) {
    for (const listener of this.listeners.get(event) ?? []) listener(event, data);
  }
  destroy() {
    this.destroyed = true;
  }

  /** The headers its `xhrSetup` puts on a request for `url`. */
  headersFor(url: string): Record<string, string> {
    const headers: Record<string, string> = {};
    const xhr = {
      open: vi.fn(),
      setRequestHeader: (name: string, value: string) => (headers[name] = value),
    } as unknown as XMLHttpRequest;
    this.config.xhrSetup(xhr, url);
    return headers;
  }
}
