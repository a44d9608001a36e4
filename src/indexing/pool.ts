/**
 * Runs the model-free part of analysis (read, screen, parse, extract) on
 * worker threads, so that indexing uses every core. Model enrichment is I/O
 * and stays on the calling thread. The same threads run an in-process
 * embedder for the indexer when its backend can make it there (embedOnWorker;
 * the built-in one): in a full index they would otherwise wait while the
 * calling thread embeds and writes.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ContentLimits } from '../analysis/content.js';
import type { AnalysisOutput } from '../analysis/analyzer.js';
import type { AnalysisEvent } from '../analysis/events.js';
import type { AnalysisResult } from '../analysis/types.js';
import { IndexingError } from './errors.js';
import type { FileRead } from './file-read.js';
import { builtWorkerModule, workerStartOptions } from '../worker-module.js';

/** Asks a worker to finish what it is doing and exit. */
export interface PoolShutdown {
  shutdown: true;
}

export interface PoolRequest {
  shutdown?: undefined;
  embed?: undefined;
  id: number;
  path: string;
  /** The file's bytes when the caller has read them already (then `path` only names the file). */
  bytes?: Uint8Array;
}

/** A file for the worker to read itself, hash, and analyse unless its content hashes to `knownHash`. */
export interface PoolReadRequest {
  shutdown?: undefined;
  embed?: undefined;
  id: number;
  path: string;
  read: { absolutePath: string; knownHash: string | undefined };
}

/** Documents for the embedder of this id (made by its backend on the worker) to embed there. */
export interface PoolEmbedRequest {
  shutdown?: undefined;
  embed: { embedderId: string };
  id: number;
  texts: readonly string[];
}

export type PoolResponse =
  | { id: number; read: FileRead; events: AnalysisEvent[]; result?: undefined; error?: undefined }
  | { id: number; result: AnalysisResult; text?: string; events: AnalysisEvent[]; error?: undefined; read?: undefined }
  | { id: number; vectors: Float32Array; result?: undefined; error?: undefined; read?: undefined; events?: undefined }
  | { id: number; error: string; result?: undefined; events?: undefined; read?: undefined };

export interface AnalysisPoolOptions {
  /** Default: the number of cores. */
  threads?: number;
  limits?: Partial<ContentLimits>;
  onEvent?: (event: AnalysisEvent) => void;
}

/** The compiled worker (worker threads load plain JavaScript only: see builtWorkerModule). */
function workerFile(): URL {
  const file = builtWorkerModule(import.meta.url, 'indexing/worker.js');
  if (file) return file;
  throw new IndexingError('the analysis worker is not built: run `npm run build:ts`', 'WORKER_NOT_BUILT');
}

/**
 * Requests a worker holds at once: the one it runs and the next. The calling thread hands out
 * work only between its own tasks, and an indexer's commit of a batch keeps it busy for a tenth
 * of a second or more; with a request waiting in its port, a worker goes on meanwhile instead of
 * idling until the commit ends (measured: docs/performance.md, "The figures behind the constants").
 */
const REQUESTS_PER_WORKER = 2;

/** How long a worker gets to finish its file and exit before it is terminated. */
const SHUTDOWN_GRACE_MS = 10_000;

function shutDown(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (worker.threadId === -1) return resolve(); // exited already
    worker.ref(); // the process waits for the worker to exit, rather than killing it mid-load at exit
    const timer = setTimeout(() => void worker.terminate(), SHUTDOWN_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage({ shutdown: true } satisfies PoolShutdown);
  });
}

interface Pending {
  resolve: (output: AnalysisOutput | Float32Array | FileRead) => void;
  reject: (error: Error) => void;
}

/** What the Indexer needs of the analysis: bytes in, a CodeFile (or why the file was skipped) out. */
export interface FileAnalyzer {
  /** Files it analyses at once: the Indexer keeps several times as many in flight (filesInFlight). */
  readonly threads: number;
  analyzeBytes(path: string, bytes: Uint8Array): Promise<AnalysisResult>;
  /**
   * The same, with the text analysis read (decoded, credentials redacted):
   * the Indexer then builds documents from it instead of decoding and
   * redacting the file again on its own thread.
   */
  analyzeWithText?(path: string, bytes: Uint8Array): Promise<AnalysisOutput>;
  /**
   * Reads the file where it is analysed, hashes it, and analyses it unless its content hashes
   * to `knownHash`: the indexer's own thread then does no file I/O.
   */
  readAndAnalyze?(absolutePath: string, path: string, knownHash: string | undefined): Promise<FileRead>;
}

export class AnalysisPool implements FileAnalyzer {
  readonly #workers: Worker[] = [];
  /** Requests each worker holds (REQUESTS_PER_WORKER at most). */
  readonly #held = new Map<Worker, number>();
  readonly #queue: { request: PoolRequest | PoolEmbedRequest | PoolReadRequest; pending: Pending }[] = [];
  readonly #pending = new Map<number, Pending>();
  readonly #emit: (event: AnalysisEvent) => void;
  #nextId = 0;
  #closed = false;

  constructor(options: AnalysisPoolOptions = {}) {
    this.#emit = options.onEvent ?? (() => {});
    const threads = Math.max(1, options.threads ?? availableParallelism());
    const file = workerFile();
    const startOptions = workerStartOptions();
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(file, { workerData: { limits: options.limits ?? {} }, ...startOptions });
      worker.on('message', (response: PoolResponse) => this.#settle(worker, response));
      worker.on('error', (error) => {
        this.#held.delete(worker); // it has exited: no more work for it
        this.#failAll(error);
      });
      worker.unref();
      this.#workers.push(worker);
      this.#held.set(worker, 0);
    }
  }

  get threads(): number {
    return this.#workers.length;
  }

  async analyzeFile(path: string): Promise<AnalysisResult> {
    return ((await this.#submit({ id: this.#nextId++, path })) as AnalysisOutput).result;
  }

  /** Analyses bytes already read (they are copied to the worker); `path` names the file and picks its language. */
  async analyzeBytes(path: string, bytes: Uint8Array): Promise<AnalysisResult> {
    return (await this.analyzeWithText(path, bytes)).result;
  }

  analyzeWithText(path: string, bytes: Uint8Array): Promise<AnalysisOutput> {
    return this.#submit({ id: this.#nextId++, path, bytes }) as Promise<AnalysisOutput>;
  }

  /**
   * Reads a file on a worker (synchronously there: a slow disk holds up that thread, not the
   * caller's), hashes it, and analyses it unless it is the content `knownHash` names.
   */
  readAndAnalyze(absolutePath: string, path: string, knownHash: string | undefined): Promise<FileRead> {
    return this.#submit({ id: this.#nextId++, path, read: { absolutePath, knownHash } }) as Promise<FileRead>;
  }

  /**
   * Embeds documents on a worker with the embedder `embedderId` names (its
   * backend's workerId): what the indexer's own thread would otherwise
   * spend most of a full index on, while the workers wait for files. Ahead
   * of the files waiting, because the files analysed already wait for these
   * vectors to be written.
   */
  embedOnWorker(embedderId: string, texts: readonly string[]): Promise<Float32Array> {
    return this.#submit({ id: this.#nextId++, embed: { embedderId }, texts }, true) as Promise<Float32Array>;
  }

  #submit(
    request: PoolRequest | PoolEmbedRequest | PoolReadRequest,
    first = false,
  ): Promise<AnalysisOutput | Float32Array | FileRead> {
    if (this.#closed) return Promise.reject(new Error('the analysis pool is closed'));
    return new Promise((resolve, reject) => {
      const entry = { request, pending: { resolve, reject } };
      if (first) this.#queue.unshift(entry);
      else this.#queue.push(entry);
      this.#dispatch();
    });
  }

  /**
   * Lets every worker exit on its own. `worker.terminate()` could stop a
   * worker inside native code (a grammar still loading, a parse), and
   * tree-sitter's binding answers that with an uncaught C++ exception that
   * aborts the whole process. Only a worker that does not exit in time is
   * terminated.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#failAll(new Error('the analysis pool was closed'));
    await Promise.all(this.#workers.map((worker) => shutDown(worker)));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const worker = this.#leastBusy();
      if (!worker) return;
      const { request, pending } = this.#queue.shift()!;
      this.#pending.set(request.id, pending);
      const held = this.#held.get(worker)!;
      if (held === 0) worker.ref(); // keep the process alive while work is outstanding
      this.#held.set(worker, held + 1);
      worker.postMessage(request);
    }
  }

  /** The worker holding the fewest requests, if one can take another. */
  #leastBusy(): Worker | undefined {
    let best: Worker | undefined;
    let fewest = REQUESTS_PER_WORKER;
    for (const [worker, held] of this.#held)
      if (held < fewest) {
        best = worker;
        fewest = held;
      }
    return best;
  }

  #settle(worker: Worker, response: PoolResponse): void {
    const pending = this.#pending.get(response.id);
    this.#pending.delete(response.id);
    const held = this.#held.get(worker)! - 1;
    this.#held.set(worker, held);
    if (held === 0) worker.unref();
    for (const event of response.events ?? []) this.#emit(event);
    if (response.error !== undefined) pending?.reject(new Error(response.error));
    else if (response.read !== undefined) pending?.resolve(response.read);
    else if (response.result === undefined) pending?.resolve(response.vectors);
    else
      pending?.resolve(
        response.text === undefined ? { result: response.result } : { result: response.result, text: response.text },
      );
    this.#dispatch();
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    for (const { pending } of this.#queue.splice(0)) pending.reject(error);
  }
}
