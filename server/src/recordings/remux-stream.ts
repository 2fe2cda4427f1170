/**
 * A download's bytes as a Readable the reply sends (decision 0081): a remux worker
 * (remux-worker.ts) makes them off the API's thread, one chunk at a time, each only once the
 * reader has taken the last. Destroying the stream (the client went, or the reader stalled) stops
 * the worker, which holds no file open between reads, so nothing stays open after a download.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { parseFromWorker, type RemuxJob, type ToWorker } from './remux-messages';

export type DownloadOutcome = 'complete' | 'aborted' | 'stalled' | 'failed';

/** A worker asked to stop that has not exited after this long is terminated. */
const STOP_GRACE_MS = 2_000;

/** The built server has the worker bundled beside it (server/build.mjs); a source run has the TS. */
const builtWorker = new URL('./remux-worker.js', import.meta.url);

function startWorker(job: RemuxJob): Worker {
  if (existsSync(builtWorker)) return new Worker(builtWorker, { workerData: job });
  // Under vitest or tsx: Node 20 runs no TypeScript itself, so the worker loads its source
  // through tsx's API.
  // require.resolve gives tsx's CommonJS build, whose import() of its ESM half fails from a
  // data: URL; its ESM build lies beside it.
  const tsxCjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsxApi = pathToFileURL(tsxCjs.replace(/\.cjs$/, '.mjs')).href;
  const source = new URL('./remux-worker.ts', import.meta.url).href;
  const bootstrap = `const { tsImport } = await import(${JSON.stringify(tsxApi)});
await tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), {
    workerData: job,
  });
}

export class RemuxStream extends Readable {
  /** Bytes handed to the reader so far. */
  bytes = 0;
  /** How it ended; undefined while it runs. */
  outcome: DownloadOutcome | undefined;
  private readonly worker: Worker;
  /** The worker waits for `more`. */
  private owed = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private exited = false;
  /** Resolves when the worker has exited: nothing of the download runs any more. */
  readonly finished: Promise<void>;

  constructor(
    job: RemuxJob,
    private readonly stallMs: number,
  ) {
    super({ highWaterMark: 512 * 1024 });
    this.worker = startWorker(job);
    this.worker.on('message', (message: unknown) => this.fromWorker(message));
    this.worker.on('error', (error) => this.destroy(error));
    this.finished = new Promise((resolve) => {
      this.worker.on('exit', () => {
        this.exited = true;
        if (this.outcome === undefined) this.destroy(new Error('the remux worker exited'));
        resolve();
      });
    });
  }

  private tell(message: ToWorker): void {
    if (!this.exited) this.worker.postMessage(message);
  }

  private fromWorker(raw: unknown): void {
    const message = parseFromWorker(raw);
    if (!message || this.destroyed) return;
    switch (message.type) {
      case 'chunk': {
        this.bytes += message.data.byteLength;
        const data = Buffer.from(
          message.data.buffer,
          message.data.byteOffset,
          message.data.byteLength,
        );
        if (this.push(data)) this.tell('more');
        else this.waitForReader();
        break;
      }
      case 'done':
        this.outcome = 'complete';
        this.push(null);
        break;
      case 'failed':
        this.destroy(new Error(`remux failed: ${message.message}`));
        break;
      case 'stopped':
        break;
    }
  }

  /** The reader's buffer is full: the worker waits, and a reader that never reads is let go. */
  private waitForReader(): void {
    this.owed = true;
    clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => {
      this.outcome ??= 'stalled';
      this.destroy(new Error(`the reader took nothing for ${this.stallMs} ms`));
    }, this.stallMs);
  }

  override _read(): void {
    clearTimeout(this.stallTimer);
    if (!this.owed) return;
    this.owed = false;
    this.tell('more');
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.stallTimer);
    this.outcome ??= error ? 'failed' : 'aborted';
    if (!this.exited) {
      this.tell('stop');
      const kill = setTimeout(() => void this.worker.terminate(), STOP_GRACE_MS);
      kill.unref();
      this.worker.once('exit', () => clearTimeout(kill));
    }
    callback(error);
  }
}
