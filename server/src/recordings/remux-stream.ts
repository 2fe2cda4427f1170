/**
 * A download's bytes as a Readable the reply sends (decision 0081): a remux worker
 * (remux-worker.ts) makes them off the API's thread, one chunk at a time, each only once the
 * reader has taken the last. Destroying the stream (the client went, or the reader stalled) stops
 * the worker, which holds no file open between reads, so nothing stays open after a download.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseFromWorker, type RemuxJob, type ToWorker } from './remux-messages';

export type DownloadOutcome = 'complete' | 'aborted' | 'stalled' | 'failed';

/** A worker asked to stop that has not exited after this long is terminated. */
const STOP_GRACE_MS = 2_000;

/** The built server has the worker bundled beside it (server/build.mjs); a source run has the TS. */
const builtWorker = new URL('./remux-worker.js', import.meta.url);

/** A source run's worker, bundled once: the process's own copy of what server/build.mjs makes. */
let sourceRunWorker: URL | undefined;

/**
 * Under vitest or tsx (Node 20 runs no TypeScript itself): the worker's source bundled once with
 * esbuild, as the build does, into a file of this process's own. Loading the source through tsx in
 * every worker cost each download ~0.3 s of compiling; the test of 100 downloads took 39 s.
 */
function bundledSourceWorker(): URL {
  if (sourceRunWorker) return sourceRunWorker;
  const esbuild: typeof import('esbuild') = createRequire(import.meta.url)('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'tailcam-remux-worker-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'worker.mjs');
  esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL('./remux-worker.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  sourceRunWorker = pathToFileURL(outfile);
  return sourceRunWorker;
}

function startWorker(job: RemuxJob): Worker {
  const entry = existsSync(builtWorker) ? builtWorker : bundledSourceWorker();
  return new Worker(entry, { workerData: job });
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
