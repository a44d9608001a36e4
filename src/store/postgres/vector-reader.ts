/**
 * The vector half of a search in the Postgres store: the k nearest elements to a query vector
 * over some repositories, each with the score the embedded searcher uses (search/searcher.ts
 * pushes FAISS's `distances` for an inner-product index: the inner product, higher is better).
 * pgvector's `<#>` is the negated inner product, so the score is `-(embedding <#> query)`: the
 * same quantity, in single precision as FAISS computes it.
 *
 * Through the HNSW index (vector-space.ts) by default, with `hnsw.ef_search` from the options and,
 * where pgvector has them (0.8 and later), iterative scans (`relaxed_order`), so that a filter
 * by repository still yields k rows; the rows are put in exact order again afterwards. `exact`
 * turns index scans off: a scan of every vector of the repositories, as FAISS's Flat index does.
 * The settings are SET LOCAL (set_config(…, true)), so they end with the read.
 */
import pg from 'pg';
import type { Queryable } from './serial.js';
import { quoteSchema } from './schema.js';
import { requireVectorSpace, spaceTables, type VectorSpace, vectorText } from './vector-space.js';
import { inTransaction } from './transaction.js';

export interface VectorHit {
  id: number;
  /** The inner product of the element's vector and the query's (higher is better): FAISS's distance. */
  score: number;
}

export interface NearestQuery {
  /** The embedder whose vectors are searched (recorded: recordVectorSpace). */
  embedder: string;
  /** Of the embedder's dimension, finite values. */
  vector: ArrayLike<number>;
  /** The repositories searched (none: no hits). */
  repoIds: readonly number[];
  /** How many hits, from 1 to MAX_K. */
  k: number;
  /** HNSW's search breadth, from 1 to 1000 (pgvector's range); default DEFAULT_EF_SEARCH. */
  efSearch?: number | undefined;
  /** Scan every vector instead of the index: exact, slower. */
  exact?: boolean | undefined;
}

/** At most this many hits a query. */
export const MAX_K = 10_000;
/** hnsw.ef_search unless told: above pgvector's 40, for recall near the embedded store's (~0.95 at 10). */
export const DEFAULT_EF_SEARCH = 100;

/** A pool (each read in a transaction of its own), or one connection in the caller's transaction. */
type Db = pg.Pool | Queryable;

/**
 * The nearest-neighbour SQL of a space: $1 the query vector, $2 the repositories, $3 k. The inner
 * query is what the index answers (in relaxed order, with iterative scans); the outer puts it in
 * exact order, ties by id.
 */
export function nearestSql(schema: string, space: VectorSpace): string {
  const { vectors } = spaceTables(schema, space);
  const d = space.dimension;
  return `
    WITH nearest AS MATERIALIZED (
      SELECT element_id, embedding <#> $1::vector(${d}) AS distance FROM ${vectors}
      WHERE repo_id = ANY($2::integer[])
      ORDER BY embedding <#> $1::vector(${d})
      LIMIT $3
    )
    SELECT element_id, -distance AS score FROM nearest ORDER BY distance, element_id`;
}

export class VectorReader {
  readonly #db: Db;
  readonly #schema: string;
  #iterative: Promise<boolean> | undefined;
  readonly #space: VectorSpace | undefined;
  readonly #ownTransaction: boolean;

  /**
   * A reader of the schema `schema`. `db` a pool (each search on a client of its own, in a
   * read-only transaction), or a client in a transaction of the caller's (each search then
   * runs in a savepoint, rolled back after it, which ends its settings too).
   */
  constructor(
    db: Db,
    schema: string,
    known: { iterativeScans?: Promise<boolean> | undefined; space?: VectorSpace; ownTransaction?: boolean } = {},
  ) {
    quoteSchema(schema);
    this.#db = db;
    this.#schema = schema;
    // A caller whose transaction serves this read alone (a search's) needs no savepoint to end the settings.
    this.#ownTransaction = known.ownTransaction ?? false;
    // What a long-lived caller learnt already (each is one query otherwise): the server's iterative scans, the space.
    this.#iterative = known.iterativeScans;
    this.#space = known.space;
  }

  /** Whether the server's pgvector has iterative index scans (0.8.0 and later), asked once per pool. */
  static iterativeScans(db: Queryable): Promise<boolean> {
    return db
      .query<{ version: string | null }>("SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'")
      .then(({ rows }) => {
        const [major = 0, minor = 0] = (rows[0]?.version ?? '0').split('.').map(Number);
        return major > 0 || minor >= 8;
      });
  }

  /** The k elements nearest the query vector in the repositories, best first (ties by id). */
  async nearest(query: NearestQuery): Promise<VectorHit[]> {
    const { k, repoIds } = query;
    if (!Number.isSafeInteger(k) || k < 1 || k > MAX_K)
      throw new RangeError(`k must be an integer from 1 to ${MAX_K}: ${k}`);
    const efSearch = query.efSearch ?? DEFAULT_EF_SEARCH;
    if (!Number.isSafeInteger(efSearch) || efSearch < 1 || efSearch > 1000)
      throw new RangeError(`efSearch must be an integer from 1 to 1000: ${efSearch}`);
    for (const id of repoIds) if (!Number.isSafeInteger(id)) throw new TypeError(`not a repository id: ${id}`);
    return this.#read(async (db) => {
      const space =
        this.#space?.embedder === query.embedder
          ? this.#space
          : await requireVectorSpace(db, this.#schema, query.embedder);
      const vector = vectorText(query.vector, space.dimension, 'the query vector');
      if (repoIds.length === 0) return [];
      // The settings last until the transaction (or the savepoint) ends; one statement for all of them.
      if (query.exact) await db.query("SELECT set_config('enable_indexscan', 'off', true)");
      else if (space.indexed)
        await db.query(
          `SELECT set_config('hnsw.ef_search', $1, true)${
            (await this.#hasIterativeScans(db)) ? ", set_config('hnsw.iterative_scan', 'relaxed_order', true)" : ''
          }`,
          [String(efSearch)],
        );
      const { rows } = await db.query<{ element_id: string; score: number }>(nearestSql(this.#schema, space), [
        vector,
        [...repoIds],
        k,
      ]);
      return rows.map((row) => ({ id: Number(row.element_id), score: row.score }));
    });
  }

  /** Whether the server's pgvector has iterative index scans; asked once. */
  #hasIterativeScans(db: Queryable): Promise<boolean> {
    this.#iterative ??= VectorReader.iterativeScans(db).catch((error: unknown) => {
      this.#iterative = undefined;
      throw error;
    });
    return this.#iterative;
  }

  async #read<T>(work: (db: Queryable) => Promise<T>): Promise<T> {
    if (this.#db instanceof pg.Pool) return inTransaction(this.#db, work, 'BEGIN READ ONLY');
    const client = this.#db;
    if (this.#ownTransaction) return work(client);
    await client.query('SAVEPOINT ocvector_vector_read');
    try {
      return await work(client);
    } finally {
      await client.query('ROLLBACK TO SAVEPOINT ocvector_vector_read');
      await client.query('RELEASE SAVEPOINT ocvector_vector_read');
    }
  }
}
