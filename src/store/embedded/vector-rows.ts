/**
 * The rows a FAISS file is derived from: cached vectors, keyed by
 * (embedder, document hash) so that an unchanged element is never embedded
 * twice, and tombstones of removed vectors, which an older FAISS file
 * replays to be brought level. Vectors of an embedder that recomputes
 * cheaply are kept here only until a checkpoint writes them to the FAISS
 * file (vector-file.ts): between checkpoints, these rows are what readers
 * replay. IndexStore delegates to it; the SQL is here.
 */
import type Database from 'better-sqlite3';
import { decodeStoredVector, encodeStoredVector, storedVectorBytes } from '../../vector/half-precision.js';
import type { EmbedderRecord } from '../rows.js';
import { prepared } from './sqlite.js';

/** A page of vectors: those past a vector id, at most `limit` rows (-1: all). */
export interface VectorPage {
  afterId: number;
  limit: number;
}

export interface VectorRowsRead {
  ids: BigInt64Array;
  vectors: Float32Array;
  missing: number[];
  lastId: number;
}

export class VectorRows {
  readonly #db: Database.Database;
  readonly #get;
  readonly #put;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#get = prepared<[string, string], { vector: Buffer }>(
      db,
      'SELECT vector FROM embeddings WHERE embedder = ? AND document_hash = ?',
    );
    this.#put = prepared(db, 'INSERT OR IGNORE INTO embeddings (embedder, document_hash, vector) VALUES (?, ?, ?)');
  }

  getEmbedding(embedder: string, documentHash: string): Float32Array | undefined {
    const row = this.#get.get(embedder, documentHash);
    return row ? decodeStoredVector(row.vector) : undefined;
  }

  /** Kept at half precision when that loses nothing (vectors from the run are rounded so: vector/half-precision.ts). */
  putEmbedding(embedder: string, documentHash: string, vector: Float32Array): void {
    this.#put.run(embedder, documentHash, encodeStoredVector(vector));
  }

  /**
   * Vectors of live elements in vector_id order, optionally only those added
   * after a generation (replaying onto an older FAISS file), and a page of
   * them at a time (`page`: those past a vector id, at most `limit` rows), so
   * that a large index is rebuilt without every vector in memory at once.
   * Rows without a cached vector are reported in `missing`: those whose
   * vectors are kept in the FAISS file alone (an embedder that recomputes
   * cheaply, once checkpointed), or a database edited by hand. `lastId` is the last
   * element's vector id read (-1 when none): where the next page starts.
   */
  vectors(
    embedder: EmbedderRecord,
    afterGeneration = -1,
    page: VectorPage = { afterId: -1, limit: -1 },
  ): VectorRowsRead {
    const rows = prepared<[string, number, number, number], { id: number; vector: Buffer | null }>(
      this.#db,
      `SELECT e.vector_id AS id, v.vector AS vector FROM elements e
         LEFT JOIN embeddings v ON v.embedder = ? AND v.document_hash = e.document_hash
         WHERE e.generation > ? AND e.vector_id > ? ORDER BY e.vector_id LIMIT ?`,
    ).all(embedder.id, afterGeneration, page.afterId, page.limit);
    const vectors = new Float32Array(rows.length * embedder.dimension);
    const ids = new BigInt64Array(rows.length);
    const missing: number[] = [];
    let count = 0;
    for (const row of rows) {
      const vector = row.vector === null ? undefined : decodeStoredVector(row.vector);
      if (vector === undefined || vector.length !== embedder.dimension) {
        missing.push(row.id);
        continue;
      }
      ids[count] = BigInt(row.id);
      vectors.set(vector, count++ * embedder.dimension);
    }
    return {
      ids: ids.subarray(0, count),
      vectors: vectors.subarray(0, count * embedder.dimension),
      missing,
      lastId: rows.at(-1)?.id ?? -1,
    };
  }

  /**
   * How many live elements have a cached vector of this embedder's
   * dimension (at half precision or as float32: half-precision.ts): what a
   * rebuild will add.
   */
  vectorCount(embedder: EmbedderRecord): number {
    return prepared<[string, number, number], { n: number }>(
      this.#db,
      `SELECT count(*) AS n FROM elements e
         JOIN embeddings v ON v.embedder = ? AND v.document_hash = e.document_hash
         WHERE length(v.vector) IN (?, ?)`,
    ).get(embedder.id, storedVectorBytes(embedder.dimension, 'half'), storedVectorBytes(embedder.dimension, 'float32'))!
      .n;
  }

  /** Live elements of which this table holds no vector of the embedder (kept in the FAISS file alone). */
  withoutVector(embedder: string): { id: number; hash: string; rootId: number }[] {
    return prepared<[string], { id: number; hash: string; rootId: number }>(
      this.#db,
      `SELECT e.vector_id AS id, e.document_hash AS hash, f.root_id AS rootId
         FROM elements e JOIN files f ON f.id = e.file_id WHERE NOT EXISTS
         (SELECT 1 FROM embeddings v WHERE v.embedder = ? AND v.document_hash = e.document_hash)`,
    ).all(embedder);
  }

  /** Vector ids removed after a generation (replayed onto an older FAISS file). */
  removedAfter(generation: number): BigInt64Array {
    const rows = prepared<[number], { id: number }>(
      this.#db,
      'SELECT vector_id AS id FROM removed_vectors WHERE generation > ?',
    ).all(generation);
    return BigInt64Array.from(rows, (row) => BigInt(row.id));
  }

  /** Vectors added or removed after a generation: what replaying onto an older FAISS file costs. */
  changesAfter(generation: number): number {
    const added = prepared<[number], { n: number }>(
      this.#db,
      'SELECT count(*) AS n FROM elements WHERE generation > ?',
    ).get(generation)!.n;
    const removed = prepared<[number], { n: number }>(
      this.#db,
      'SELECT count(*) AS n FROM removed_vectors WHERE generation > ?',
    ).get(generation)!.n;
    return added + removed;
  }

  /** Tombstones at or before a generation are in the FAISS file already. */
  pruneRemoved(generation: number): void {
    prepared(this.#db, 'DELETE FROM removed_vectors WHERE generation <= ?').run(generation);
  }

  /** Drops every cached vector of an embedder (its vectors are in the FAISS file); returns how many. */
  dropEmbeddings(embedder: string): number {
    const others = prepared<[string], { one: number }>(
      this.#db,
      'SELECT 1 AS one FROM embeddings WHERE embedder != ? LIMIT 1',
    ).get(embedder);
    // With no other embedder's rows, a DELETE without WHERE frees the pages whole (SQLite's truncate
    // optimisation) instead of visiting every row and index entry (docs/performance.md, "How the vectors are kept").
    if (!others) return prepared(this.#db, 'DELETE FROM embeddings').run().changes;
    return prepared(this.#db, 'DELETE FROM embeddings WHERE embedder = ?').run(embedder).changes;
  }

  /**
   * Drops cached vectors no element uses, once they outnumber the `live`
   * elements: the cache keeps recent history (switching branches back is
   * cheap) but does not grow without bound.
   */
  pruneEmbeddings(live: number): number {
    const total = prepared<[], { n: number }>(this.#db, 'SELECT count(*) AS n FROM embeddings').get()!.n;
    if (total <= 2 * live + 1000) return 0;
    return prepared(
      this.#db,
      'DELETE FROM embeddings WHERE document_hash NOT IN (SELECT document_hash FROM elements)',
    ).run().changes;
  }
}
