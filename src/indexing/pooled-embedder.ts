/**
 * The built-in embedder, run on the analysis pool's worker threads. In a
 * full index the indexer's own thread is the bottleneck (it writes SQLite
 * and FTS5 and builds the documents) while the workers wait for files: the
 * embedder was the largest share of that thread's time (about 6 of 14 s
 * on the compiler lib). Vectors are the same: the workers run the same
 * code on the same texts.
 */
import type { AnalysisPool } from './pool.js';
import { BuiltinEmbedder } from '../vector/builtin-embedder.js';
import type { Embedder, QueryEmbeddingOptions } from '../vector/embedder.js';

/** `embedder` with its document embedding moved to `pool`'s threads when it is the built-in one; else `embedder` itself. */
export function embedderOnPool(embedder: Embedder, pool: AnalysisPool | undefined): Embedder {
  return pool && embedder instanceof BuiltinEmbedder ? new PooledBuiltinEmbedder(embedder, pool) : embedder;
}

class PooledBuiltinEmbedder implements Embedder {
  readonly inProcess = true;
  readonly allowsZeroVectors = true;
  #calls = 0;

  constructor(
    private readonly embedder: BuiltinEmbedder,
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

  init(): Promise<void> {
    return this.embedder.init();
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array> {
    this.#calls++;
    return this.pool.embedBuiltin(this.dimension, texts);
  }

  embedQuery(text: string, options?: QueryEmbeddingOptions): Promise<Float32Array> {
    return this.embedder.embedQuery(text, options);
  }
}
