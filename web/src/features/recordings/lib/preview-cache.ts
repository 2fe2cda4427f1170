/**
 * The preview pictures a timeline has shown lately, as `blob:` URLs (decision 0071: fetched with
 * the login token), the few most recent kept so that scrubbing back and forth fetches each once.
 * One per timeline, never shared (no module state); `dispose` revokes every URL it made.
 */
export class PreviewCache {
  private readonly urls = new Map<string, Promise<string>>();
  private disposed = false;

  constructor(
    private readonly load: (key: string) => Promise<Blob>,
    private readonly keep = 8,
  ) {}

  /** The picture of `key` as a blob URL: fetched once, then from the cache while it is there. */
  get(key: string): Promise<string> {
    const cached = this.urls.get(key);
    if (cached) {
      // Most recently used last: the Map's order is the eviction order.
      this.urls.delete(key);
      this.urls.set(key, cached);
      return cached;
    }
    const url = this.load(key).then((blob) => URL.createObjectURL(blob));
    // A failed fetch is not kept: it is asked again next time.
    url.catch(() => this.urls.get(key) === url && this.urls.delete(key));
    this.urls.set(key, url);
    while (this.urls.size > this.keep) {
      const [oldest, oldestUrl] = this.urls.entries().next().value!;
      this.urls.delete(oldest);
      void oldestUrl.then(
        (made) => URL.revokeObjectURL(made),
        () => undefined,
      );
    }
    if (this.disposed) this.dispose();
    return url;
  }

  dispose(): void {
    this.disposed = true;
    for (const url of this.urls.values()) {
      void url.then(
        (made) => URL.revokeObjectURL(made),
        () => undefined,
      );
    }
    this.urls.clear();
  }
}
