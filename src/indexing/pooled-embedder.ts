/**
 * An in-process embedder run on the analysis pool's worker threads, when
 * its backend can make it there (EmbedderBackend.workerId: the built-in
 * one). In a full index the indexer's own thread is the bottleneck (it
 * writes SQLite and FTS5 and builds the documents) while the workers wait
 * for files, and the embedder was the largest share of that thread's time
 * (docs/performance.md). Vectors are the same: the workers run the same
 * code on the same texts. Queries stay on the calling thread.
 */
import type { AnalysisPool } from './pool.js';
import { workerIdOf } from '../vector/backends.js';
import type { Embedder, EmbedderInitOptions, QueryEmbeddingOptions } from '../vector/embedder.js';

/** `embedder` with its document embedding moved to `pool`'s threads when its backend can make it there; else `embedder` itself. */
export function embedderOnPool(embedder: Embedder, pool: AnalysisPool | undefined): Embedder {
  const workerId = pool && workerIdOf(embedder);
  return pool && workerId ? new PooledEmbedder(embedder, workerId, pool) : embedder;
}

class PooledEmbedder implements Embedder {
  readonly inProcess = true;
  #calls = 0;

  constructor(
    private readonly embedder: Embedder,
    private readonly workerId: string,
    private readonly pool: AnalysisPool,
  ) {}

  get id(): string {
    return this.embedder.id;
  }

  get dimension(): number {
    return this.embedder.dimension;
  }

  get calls(): number {
    return this.#calls;
  }

  get allowsZeroVectors(): boolean {
    return this.embedder.allowsZeroVectors === true;
  }

  init(options?: EmbedderInitOptions): Promise<void> {
    return this.embedder.init(options);
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array> {
    this.#calls++;
    return this.pool.embedOnWorker(this.workerId, texts);
  }

  embedQuery(text: string, options?: QueryEmbeddingOptions): Promise<Float32Array> {
    return this.embedder.embedQuery(text, options);
  }
}
