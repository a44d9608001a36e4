/**
 * Searches on every core: a SearcherPool holds one Searcher per worker
 * thread over the same index (each with its own database connection and
 * vector index, read-only) and hands each call to the least busy. A
 * Searcher answers its searches one at a time on one JavaScript thread;
 * a server of many agents (oc-vector-mcp --http) needs them side by side.
 * It answers what a Searcher answers (SearchService), with the same errors.
 *
 * The workers read the FAISS file shared (VectorIndexOptions.shareFile):
 * memory holds it once for them all. A worker that must bring it level with
 * an indexer's later commit makes a copy of its own first, until the next
 * checkpoint file, which they share again.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Repository } from '../../store/rows.js';
import { builtWorkerModule, workerStartOptions } from '../../worker-module.js';
import { SearchError } from '../errors.js';
import type { SearchEvent } from '../searcher.js';
import type { SearchService } from '../search-service.js';
import {
  decodeError,
  type FromWorker,
  type PooledMethod,
  type SearcherFacts,
  type SearchWorkerData,
  type ToWorker,
  type WorkerSearcherOptions,
} from './protocol.js';

export interface SearcherPoolOptions extends WorkerSearcherOptions {
  /** Worker threads, 1 to MAX_SEARCH_WORKERS. Default: the number of cores. */
  workers?: number;
  /**
   * Modules each worker imports before it opens the index (specifiers or
   * file URLs): where an embedder backend registered in this thread
   * (registerEmbedderBackend) registers itself in the workers too.
   */
  preload?: readonly string[];
  onEvent?: (event: SearchEvent) => void;
}

export const MAX_SEARCH_WORKERS = 64;
/** Calls a worker holds at once: a second one waits there, so that the worker never idles for a round trip. */
const IN_FLIGHT_PER_WORKER = 2;
/** After a worker failed to open the index, how long before another is tried (when a call comes). */
const RETRY_AFTER_FAILED_START_MS = 5_000;
/** How long close() lets a worker finish its calls and exit before it is terminated. */
const SHUTDOWN_GRACE_MS = 5_000;

interface Call {
  id: number;
  method: PooledMethod;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  calls: Map<number, Call>;
}

function workerFile(): URL {
  const file = builtWorkerModule(import.meta.url, 'search/pool/search-worker.js');
  if (file) return file;
  throw new SearchError('the search worker is not built: run `npm run build:ts`', 'BAD_OPTION');
}

export class SearcherPool implements SearchService {
  readonly #workers: PoolWorker[] = [];
  readonly #queue: Call[] = [];
  readonly #data: SearchWorkerData;
  readonly #onEvent: (event: SearchEvent) => void;
  /** How many workers the pool keeps: one that dies is replaced. */
  readonly #size: number;
  /** Workers starting in place of ones that died, until they have opened the index (or failed to). */
  readonly #starting = new Set<Promise<void>>();
  /** When a replacement may be tried again after one failed to open the index. */
  #retryAt = 0;
  #facts: SearcherFacts;
  #nextId = 0;
  #closed = false;

  private constructor(
    data: SearchWorkerData,
    onEvent: (event: SearchEvent) => void,
    facts: SearcherFacts,
    size: number,
  ) {
    this.#data = data;
    this.#onEvent = onEvent;
    this.#facts = facts;
    this.#size = size;
  }

  /**
   * Starts the workers and opens the index in each; rejects as
   * Searcher.open does (StoreError NOT_FOUND when there is no index) when
   * any of them cannot open it.
   */
  static async open(options: SearcherPoolOptions): Promise<SearcherPool> {
    const { workers = availableParallelism(), preload = [], onEvent = () => {}, ...searcherOptions } = options;
    if (!Number.isInteger(workers) || workers < 1 || workers > MAX_SEARCH_WORKERS)
      throw new SearchError(
        `workers must be an integer from 1 to ${MAX_SEARCH_WORKERS} (got ${workers})`,
        'BAD_OPTION',
      );
    if ((options as { embedder?: unknown }).embedder !== undefined)
      throw new SearchError(
        'a searcher pool makes its query embedders in its worker threads: give embedderOptions (or register the backend in a preload module), not an embedder',
        'BAD_OPTION',
      );
    if (typeof searcherOptions.store === 'object' && searcherOptions.store !== null && 'read' in searcherOptions.store)
      throw new SearchError(
        'a searcher pool opens the store in each worker thread: give its URL, not a store already open',
        'BAD_OPTION',
      );
    // One FAISS index in memory for every worker (read shared, on the CPU), not one each.
    const vectorIndex = { ...searcherOptions.vectorIndex, shareFile: searcherOptions.vectorIndex?.shareFile ?? true };
    const data: SearchWorkerData = { options: { ...searcherOptions, vectorIndex }, preload };
    const file = workerFile();
    const started: ReturnType<typeof startWorker>[] = [];
    try {
      for (let i = 0; i < workers; i++) started.push(startWorker(file, data, onEvent));
    } catch (error) {
      await Promise.all(started.map((start) => stopWorker(start.worker)));
      throw error;
    }
    const opened = await Promise.allSettled(started.map((start) => start.opened));
    const failed = opened.find((result) => result.status === 'rejected');
    if (failed) {
      await Promise.all(started.map((start) => stopWorker(start.worker)));
      throw failed.reason;
    }
    const facts = (opened[0] as PromiseFulfilledResult<SearcherFacts>).value;
    const pool = new SearcherPool(data, onEvent, facts, workers);
    for (const { worker } of started) pool.#adopt(worker);
    return pool;
  }

  get workers(): number {
    return this.#workers.length;
  }

  get indexDir(): string {
    return this.#facts.indexDir;
  }

  get root(): string {
    return this.#facts.root;
  }

  get embedderId(): string {
    return this.#facts.embedderId;
  }

  repositories(): readonly Repository[] {
    return this.#facts.repositories;
  }

  currentRepositories(): ReturnType<SearchService['currentRepositories']> {
    return this.#call('currentRepositories', []);
  }

  searchRoots(...args: Parameters<SearchService['searchRoots']>): ReturnType<SearchService['searchRoots']> {
    return this.#call('searchRoots', args);
  }

  search(...args: Parameters<SearchService['search']>): ReturnType<SearchService['search']> {
    return this.#call('search', args);
  }

  searchFiles(...args: Parameters<SearchService['searchFiles']>): ReturnType<SearchService['searchFiles']> {
    return this.#call('searchFiles', args);
  }

  references(...args: Parameters<SearchService['references']>): ReturnType<SearchService['references']> {
    return this.#call('references', args);
  }

  embedderStatus(): ReturnType<SearchService['embedderStatus']> {
    return this.#call('embedderStatus', []);
  }

  /** Fails the calls waiting (SearchError CLOSED), lets each worker finish the calls it holds, and ends the workers. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = new SearchError('the searcher is closed', 'CLOSED');
    for (const call of this.#queue.splice(0)) call.reject(closed);
    await Promise.all([
      ...this.#workers.map(async ({ worker, calls }) => {
        await stopWorker(worker);
        for (const call of calls.values()) call.reject(closed);
      }),
      ...this.#starting, // a replacement still opening the index is stopped once it has
    ]);
  }

  #call<T>(method: PooledMethod, args: unknown[]): Promise<T> {
    if (this.#closed) return Promise.reject(new SearchError('the searcher is closed', 'CLOSED'));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, method, args, resolve: resolve as (value: unknown) => void, reject });
      this.#refill();
      this.#dispatch();
    });
  }

  /**
   * Starts workers in place of those that died, up to the pool's size: at
   * once after a crash, and after a failed start again only once
   * RETRY_AFTER_FAILED_START_MS have passed, when a call comes.
   */
  #refill(): void {
    while (!this.#closed && this.#workers.length + this.#starting.size < this.#size) {
      if (performance.now() < this.#retryAt) break;
      this.#replace();
    }
    // No worker, none starting, and a retry not due yet: what waits would wait for nothing.
    if (this.#workers.length === 0 && this.#starting.size === 0) {
      const error = new SearchError(
        'no search worker could open the index: the last start failed; it is tried again in a few seconds',
        'CLOSED',
      );
      for (const call of this.#queue.splice(0)) call.reject(error);
    }
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const target = this.#workers.reduce<PoolWorker | undefined>(
        (best, candidate) => (best === undefined || candidate.calls.size < best.calls.size ? candidate : best),
        undefined,
      );
      if (!target || target.calls.size >= IN_FLIGHT_PER_WORKER) return;
      const call = this.#queue.shift()!;
      target.calls.set(call.id, call);
      target.worker.ref(); // the process stays for calls under way
      try {
        target.worker.postMessage({ id: call.id, method: call.method, args: call.args } satisfies ToWorker);
      } catch (error) {
        // An argument that cannot cross threads (a function in the options).
        target.calls.delete(call.id);
        call.reject(
          new SearchError(`the call cannot go to a search worker: ${(error as Error).message}`, 'BAD_OPTION'),
        );
      }
      if (target.calls.size === 0) target.worker.unref();
    }
  }

  /** Takes a started worker into the pool: its answers settle calls, and a worker that dies is replaced. */
  #adopt(worker: Worker): void {
    const entry: PoolWorker = { worker, calls: new Map() };
    this.#workers.push(entry);
    worker.unref();
    worker.on('message', (message: FromWorker) => {
      if ('event' in message) return this.#onEvent(message.event);
      if (!('id' in message)) return;
      const call = entry.calls.get(message.id);
      entry.calls.delete(message.id);
      if (entry.calls.size === 0) worker.unref();
      if ('error' in message) call?.reject(decodeError(message.error));
      else {
        if (message.facts) this.#facts = message.facts;
        call?.resolve(message.value);
      }
      this.#dispatch();
    });
    let crash = '';
    worker.on('error', (error) => {
      crash = `: ${error.message}`; // 'exit' follows, and settles what the worker held
    });
    worker.once('exit', (code) => {
      this.#workers.splice(this.#workers.indexOf(entry), 1);
      if (this.#closed) return;
      // Only a crash ends a worker before close(): its calls fail, and a new worker takes its place.
      const lost = new SearchError(
        `a search worker stopped (exit code ${code}${crash}); the call was not answered`,
        'CLOSED',
      );
      for (const call of entry.calls.values()) call.reject(lost);
      this.#refill();
    });
  }

  /** A worker started in place of one that died: it takes calls once it has opened the index. */
  #replace(): void {
    const start = startWorker(workerFile(), this.#data, this.#onEvent);
    const settled: Promise<void> = start.opened.then(
      async () => {
        this.#starting.delete(settled);
        if (this.#closed) return stopWorker(start.worker);
        this.#adopt(start.worker);
        this.#dispatch();
      },
      async (error: Error) => {
        this.#starting.delete(settled);
        this.#retryAt = performance.now() + RETRY_AFTER_FAILED_START_MS;
        await stopWorker(start.worker);
        if (this.#workers.length > 0 || this.#starting.size > 0) return;
        // No worker is left to answer: what waits is told why.
        for (const call of this.#queue.splice(0))
          call.reject(new SearchError(`no search worker could open the index: ${error.message}`, 'CLOSED'));
      },
    );
    this.#starting.add(settled);
  }
}

/** A worker starting, and its Searcher's facts once it has opened the index (or why it could not). */
function startWorker(
  file: URL,
  data: SearchWorkerData,
  onEvent: (event: SearchEvent) => void,
): { worker: Worker; opened: Promise<SearcherFacts> } {
  const worker = new Worker(file, { workerData: data, ...workerStartOptions() });
  const opened = new Promise<SearcherFacts>((resolve, reject) => {
    const onMessage = (message: FromWorker) => {
      if ('event' in message) return onEvent(message.event); // the index rebuilt or replayed while opening
      if ('opened' in message) resolve(message.opened);
      else if ('openFailed' in message) reject(decodeError(message.openFailed));
      else return;
      worker.off('message', onMessage);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new SearchError(`a search worker exited (code ${code}) before opening the index`, 'CLOSED')),
    );
  });
  return { worker, opened };
}

function stopWorker(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (worker.threadId === -1) return resolve(); // exited already
    worker.ref();
    const timer = setTimeout(() => void worker.terminate(), SHUTDOWN_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage({ shutdown: true } satisfies ToWorker);
  });
}
