/**
 * Gathers documents from many files into full batches for the embedder, and
 * keeps up to `concurrency` requests in flight, so that a model server is
 * never idle while files are analysed. Cached vectors (same embedder, same
 * document hash) never reach the embedder; equal documents in flight are
 * embedded once. Every answer is checked (vector/check.ts) before any
 * file gets its vectors: a bad one fails every file waiting, and the run.
 */
import { checkVectors } from '../vector/check.js';
import { roundToHalf } from '../vector/half-precision.js';
import type { Embedder } from '../vector/embedder.js';

export interface EmbeddingQueueOptions {
  batchSize: number;
  concurrency: number;
  /** How long a partial batch waits for more documents before it is sent. */
  lingerMs?: number;
  signal?: AbortSignal;
  /**
   * Vectors the store holds already for some document hashes (absent ones
   * are embedded): at once from the embedded store, over a connection from
   * a database server.
   */
  lookup: (hashes: readonly string[]) => ReadonlyMap<string, Float32Array> | Promise<ReadonlyMap<string, Float32Array>>;
}

interface Waiting {
  hash: string;
  text: string;
  resolve: (vector: Float32Array) => void;
  reject: (error: Error) => void;
}

export class EmbeddingQueue {
  computed = 0;
  cached = 0;
  readonly #inFlight = new Map<string, Promise<Float32Array>>();
  readonly #waiting: Waiting[] = [];
  #running = 0;
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;

  constructor(
    private readonly embedder: Embedder,
    private readonly options: EmbeddingQueueOptions,
  ) {}

  /** Vectors for documents by hash: from the cache, or embedded. */
  async vectorsFor(documents: readonly { hash: string; embeddingText: string }[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const pending: Promise<void>[] = [];
    const wanted = new Map(documents.map((document) => [document.hash, document.embeddingText]));
    const known = wanted.size > 0 ? await this.options.lookup([...wanted.keys()]) : new Map();
    for (const [hash, text] of wanted) {
      const hit = known.get(hash);
      if (hit) {
        this.cached++;
        out.set(hash, hit);
        continue;
      }
      let promise = this.#inFlight.get(hash);
      if (!promise) {
        promise = this.#enqueue(hash, text);
        this.#inFlight.set(hash, promise);
      }
      pending.push(promise.then((vector) => void out.set(hash, vector)));
    }
    await Promise.all(pending);
    return out;
  }

  #enqueue(hash: string, text: string): Promise<Float32Array> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ hash, text, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.options.concurrency && this.#waiting.length >= this.options.batchSize) {
      this.#send(this.#waiting.splice(0, this.options.batchSize));
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting.length > 0 && this.#running < this.options.concurrency) {
      // A partial batch: give other files a moment to add to it.
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (this.#waiting.length > 0 && this.#running < this.options.concurrency)
          this.#send(this.#waiting.splice(0, this.options.batchSize));
      }, this.options.lingerMs ?? 2);
    }
  }

  #send(batch: Waiting[]): void {
    this.#running++;
    this.embedder
      .embedDocuments(
        batch.map((w) => w.text),
        this.options.signal,
      )
      // Checked here, where vectors enter the index, whatever the embedder: a bad batch reaches no file.
      .then((vectors) =>
        checkVectors(this.embedder, vectors, {
          count: batch.length,
          dimension: this.embedder.dimension,
          allowZero: this.embedder.allowsZeroVectors === true,
        }),
      )
      .then(
        (vectors) => {
          const d = this.embedder.dimension;
          batch.forEach((w, i) => {
            this.#inFlight.delete(w.hash);
            // At half precision, as the embedded store keeps it: every store ranks the same vectors.
            w.resolve(roundToHalf(vectors.subarray(i * d, (i + 1) * d)));
          });
          this.computed += batch.length;
        },
        (error: Error) => {
          this.#failure = error;
          for (const w of [...batch, ...this.#waiting.splice(0)]) {
            this.#inFlight.delete(w.hash);
            w.reject(error);
          }
        },
      )
      .finally(() => {
        this.#running--;
        this.#pump();
      });
  }

  close(): void {
    clearTimeout(this.#timer);
  }
}
