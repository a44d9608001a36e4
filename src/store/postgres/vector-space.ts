/**
 * Vector spaces of the Postgres store: one per embedder, holding its dimension (schema.ts,
 * version 2: `vector_spaces`). pgvector indexes only a column typed with its dimension
 * (`vector(d)`), and the dimension is known only when an embedder is first recorded, so each
 * space has tables of its own, created by recordVectorSpace in the recording transaction. Their
 * names carry the space's id (an integer the database gave, checked again here) and a
 * repository's id, never an embedder's or a repository's name; the dimension is an integer
 * checked before it is written into the DDL.
 *
 *   element_vectors_<id> (repo_id, element_id, document_hash, embedding vector(d),
 *                         PK (repo_id, element_id)) PARTITION BY LIST (repo_id)
 *                        + (document_hash): an embedding is reused by its document's hash,
 *                          from any repository (vector-writer.ts)
 *   element_vectors_<id>_<repo>: one repository's vectors (placeRepository), with an HNSW index
 *                        of its own (embedding vector_ip_ops) WITH (m = 16, ef_construction = 64)
 *
 * A repository's own partition and index (schema 7): its first load builds its graph in memory
 * after the vectors are in (buildVectorIndex), where one shared graph took every later
 * repository's vectors one insert at a time (docs/history/postgres.md); a search of one repository
 * walks its graph alone, and a search of several merges their ordered scans (Merge Append).
 * No foreign key ties the vectors to `elements`: attaching a partition would then wait on every
 * run writing elements. The writer removes an element's vector with it, and a search reads
 * each hit's element again (search/searcher.ts drops what it does not find).
 *
 * The metric is the embedded store's: FAISS with METRIC_INNER_PRODUCT (../embedded/vector-file.ts creates
 * its index with metric 'ip') on L2-normalised vectors (vector/embedder.ts), so vector_ip_ops,
 * and a score is the inner product itself (higher is better), as FAISS's `distances` are. The
 * embedded store has no HNSW options of its own (Flat, or IVF from 100,000 vectors), so m and
 * ef_construction are pgvector's defaults. pgvector's HNSW takes at most 2,000 dimensions for
 * `vector`: a space of more has no index, and its searches scan exactly.
 */
import type pg from 'pg';
import { StoreError } from '../errors.js';
import { quoteSchema } from './schema.js';
import { inTransaction } from './transaction.js';
import { vectorTypeOid } from './vector-binary.js';

/** pgvector's `vector` holds at most this many dimensions. */
export const MAX_DIMENSION = 16_000;
/** pgvector's HNSW indexes a `vector` of at most this many dimensions. */
export const HNSW_MAX_DIMENSION = 2_000;
/** Vectors up to this dimension stay in their row (4 bytes each, with the row's other columns, under a page). */
const INLINE_MAX_DIMENSION = 1_900;
/** pgvector's defaults, stated (the embedded store has no HNSW options to follow). */
export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 64;

export interface VectorSpace {
  id: number;
  embedder: string;
  dimension: number;
  /** Whether its vectors have an HNSW index (dimension <= HNSW_MAX_DIMENSION). */
  indexed: boolean;
}

type Queryable = Pick<pg.ClientBase, 'query'>;

/** The quoted, schema-qualified name of a space's table (partitioned by repository). */
export function spaceTables(schema: string, space: VectorSpace): { vectors: string } {
  const s = quoteSchema(schema);
  const id = checkSpaceId(space.id);
  return { vectors: `${s}.element_vectors_${id}` };
}

/** The name of a repository's partition of a space's table, unqualified (an index's name derives from it). */
function partitionName(space: VectorSpace, repoId: number): string {
  return `element_vectors_${checkSpaceId(space.id)}_${checkRepoId(repoId)}`;
}

/** The quoted, schema-qualified name of a repository's partition of a space's table. */
export function partitionTable(schema: string, space: VectorSpace, repoId: number): string {
  return `${quoteSchema(schema)}.${partitionName(space, repoId)}`;
}

/** The space of an embedder, or undefined when none was recorded. */
export async function findVectorSpace(
  db: Queryable,
  schema: string,
  embedder: string,
): Promise<VectorSpace | undefined> {
  const s = quoteSchema(schema);
  checkEmbedder(embedder);
  const { rows } = await db.query<VectorSpace>(
    `SELECT id, embedder, dimension, indexed FROM ${s}.vector_spaces WHERE embedder = $1`,
    [embedder],
  );
  return rows[0];
}

/** The space of an embedder; a StoreError (NOT_FOUND) when none was recorded. */
export async function requireVectorSpace(db: Queryable, schema: string, embedder: string): Promise<VectorSpace> {
  const space = await findVectorSpace(db, schema, embedder);
  if (!space)
    throw new StoreError(
      `no vectors of the embedder ${JSON.stringify(embedder)} in the PostgreSQL store: record it first`,
      'NOT_FOUND',
    );
  return space;
}

/**
 * The space of an embedder, created with its table when it is new, in the caller's transaction
 * (`client` must be in one: a rollback takes the space back with it). Writers that record a new
 * space at once wait for each other (an advisory lock on the schema's name). An embedder
 * recorded with another dimension is a StoreError (EMBEDDER_MISMATCH). A space created now says
 * `created`: no one else sees its table before the caller commits (placeRepository).
 */
export async function recordVectorSpace(
  client: Queryable,
  schema: string,
  embedder: string,
  dimension: number,
): Promise<VectorSpace & { created?: true }> {
  const s = quoteSchema(schema);
  checkEmbedder(embedder);
  if (!Number.isSafeInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION)
    throw new RangeError(`a vector's dimension must be an integer from 1 to ${MAX_DIMENSION}, not ${dimension}`);
  // Spaces are never removed, so one already recorded is read without the lock: the lock is
  // held until the caller's transaction ends (a whole indexing run), and taking it every time
  // would make the runs of different repositories wait for each other.
  let known = await findVectorSpace(client, schema, embedder);
  if (!known) {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('ocvector vector spaces ' || $1))", [schema]);
    known = await findVectorSpace(client, schema, embedder);
  }
  if (known) {
    if (known.dimension !== dimension)
      throw new StoreError(
        `the embedder ${JSON.stringify(embedder)} has ${known.dimension} dimensions in the PostgreSQL store, not ${dimension}`,
        'EMBEDDER_MISMATCH',
      );
    return known;
  }
  const { rows } = await client.query<VectorSpace>(
    `INSERT INTO ${s}.vector_spaces (embedder, dimension, indexed) VALUES ($1, $2, $3)
     RETURNING id, embedder, dimension, indexed`,
    [embedder, dimension, dimension <= HNSW_MAX_DIMENSION],
  );
  const space = rows[0]!;
  const id = checkSpaceId(space.id);
  const { vectors } = spaceTables(schema, space);
  // Both integers are checked: the id above, the dimension at the top.
  await client.query(`
    CREATE TABLE ${vectors} (${vectorColumns(dimension)}, PRIMARY KEY (repo_id, element_id)) PARTITION BY LIST (repo_id);
    CREATE INDEX element_vectors_${id}_by_hash ON ${vectors} (document_hash);
    ${inlineStorage(vectors, dimension)}
  `);
  return { ...space, created: true };
}

/** A vector table's columns, for a space's table and a partition made apart alike. */
function vectorColumns(dimension: number): string {
  return `repo_id integer NOT NULL, element_id bigint NOT NULL, document_hash text NOT NULL, embedding vector(${dimension}) NOT NULL`;
}

/**
 * A vector of more than about 500 floats passes TOAST's 2 kB threshold and would move out of
 * its row (one more lookup for every vector a scan reads: docs/postgres.md, "The figures behind
 * the constants", gives the k-NN's time either way); kept in the row while the row fits a page, as
 * pgvector's README advises. Set on the space's table, whose partitions made in it take it
 * (PARTITION OF), and on a partition made apart.
 */
function inlineStorage(table: string, dimension: number): string {
  return dimension <= INLINE_MAX_DIMENSION ? `ALTER TABLE ${table} ALTER COLUMN embedding SET STORAGE PLAIN;` : '';
}

/**
 * Makes a repository's partition of a space's table when it has none, and its HNSW index now,
 * or, with `indexLater`, leaves the index to the caller (buildVectorIndex, once the vectors of
 * a first load are in: pgvector builds a graph in memory about five times faster than it
 * inserts the same vectors one by one: docs/history/postgres.md); `indexPending` then says so.
 *
 * `apart`: the partition is made and committed on a connection of that pool, at once, rather
 * than in the caller's transaction. CREATE TABLE … PARTITION OF locks the space's whole table
 * against every search until the transaction ends, a whole indexing run; ATTACH PARTITION, in a
 * transaction of its own, waits only for another attach. The caller's transaction sees the
 * partition from its next statement, even holding a lock on the space's table (tried:
 * docs/history/postgres.md). Without `apart` (a space this transaction created, which no one else sees yet; or a server
 * of one backend, PGlite), the partition is made in the caller's transaction.
 */
export async function placeRepository(
  client: Queryable,
  schema: string,
  space: VectorSpace,
  repoId: number,
  options: { apart?: pg.Pool; indexLater?: boolean } = {},
): Promise<{ indexPending?: true }> {
  const table = partitionTable(schema, space, repoId);
  const { rows } = await client.query<{ present: boolean; indexed: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present, to_regclass($2) IS NOT NULL AS indexed',
    [table, hnswIndex(schema, space, repoId).qualified],
  );
  const { present, indexed } = rows[0]!;
  if (!present) {
    const { vectors } = spaceTables(schema, space);
    const d = space.dimension;
    if (options.apart)
      await inTransaction(options.apart, async (apart) => {
        await apart.query(`CREATE TABLE ${table} (${vectorColumns(d)}); ${inlineStorage(table, d)}`);
        await apart.query(`ALTER TABLE ${vectors} ATTACH PARTITION ${table} FOR VALUES IN (${repoId})`);
      });
    else await client.query(`CREATE TABLE ${table} PARTITION OF ${vectors} FOR VALUES IN (${repoId})`);
  }
  if (!space.indexed || indexed) return {};
  if (options.indexLater) return { indexPending: true };
  await buildVectorIndex(client, schema, space, repoId);
  return {};
}

/**
 * What an indexing run writes its vectors into: the embedder's space, recorded when new; the
 * repository's partition placed, its graph left to the run's commit (`indexPending`); and
 * pgvector's type, which vectors are sent as (vector-binary.ts). A space other connections see
 * gets the partition apart, on `pool` (placeRepository says why); none is given on a server of
 * one backend (PGlite), where it would wait for the run's own transaction.
 */
export async function spaceOfRun(
  client: Queryable,
  schema: string,
  embedder: { id: string; dimension: number },
  repoId: number,
  pool: pg.Pool | undefined,
): Promise<{ space: VectorSpace; indexPending: boolean; vectorOid: number }> {
  const space = await recordVectorSpace(client, schema, embedder.id, embedder.dimension);
  const apart = space.created || !pool ? {} : { apart: pool };
  const placed = await placeRepository(client, schema, space, repoId, { indexLater: true, ...apart });
  return { space, indexPending: placed.indexPending === true, vectorOid: await vectorTypeOid(client) };
}

/**
 * A repository's HNSW index (placeRepository says when it is the caller's to build), built by
 * as many processes as the server gives a maintenance command (max_parallel_maintenance_workers).
 * The server plans workers by the table's size, and a table loaded in this transaction looks
 * empty to it: left alone it builds with one process, slower than with the workers the server
 * allows (docs/postgres.md, "The figures behind the constants"). The setting is put back after (a build
 * that fails ends the transaction, and the setting with it).
 */
export async function buildVectorIndex(
  client: Queryable,
  schema: string,
  space: VectorSpace,
  repoId: number,
): Promise<void> {
  const table = partitionTable(schema, space, repoId);
  const { rows } = await client.query<{ before: string }>(
    "SELECT current_setting('min_parallel_table_scan_size') AS before, set_config('min_parallel_table_scan_size', '0', true)",
  );
  await client.query(
    `CREATE INDEX ${hnswIndex(schema, space, repoId).name} ON ${table} USING hnsw (embedding vector_ip_ops)
     WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`,
  );
  await client.query("SELECT set_config('min_parallel_table_scan_size', $1, true)", [rows[0]!.before]);
}

/** The name of a repository's HNSW index, alone and schema-qualified. */
function hnswIndex(schema: string, space: VectorSpace, repoId: number): { name: string; qualified: string } {
  const name = `${partitionName(space, repoId)}_hnsw`;
  return { name, qualified: `${quoteSchema(schema)}.${name}` };
}

/**
 * A vector as pgvector's text form (a search's query vector; stored ones go in binary:
 * vector-binary.ts), after checking it: `dimension` finite numbers. A vector of
 * another length is a StoreError (EMBEDDER_MISMATCH), NaN or an infinity a RangeError. Float32
 * values print as the shortest decimal that reads back as the same double, which pgvector's
 * strtof reads back as the same float.
 */
export function vectorText(vector: ArrayLike<number>, dimension: number, what: string): string {
  if (vector.length !== dimension)
    throw new StoreError(`${what} has ${vector.length} dimensions, the vector space ${dimension}`, 'EMBEDDER_MISMATCH');
  const parts = new Array<string>(dimension);
  for (let i = 0; i < dimension; i++) {
    const value = vector[i];
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new RangeError(`${what} holds ${String(value)} at ${i}: a vector's values must be finite numbers`);
    parts[i] = String(value);
  }
  return `[${parts.join(',')}]`;
}

/** pgvector's text form back to a Float32Array. */
export function parseVector(text: string): Float32Array {
  const inner = text.slice(1, -1);
  return inner === '' ? new Float32Array(0) : Float32Array.from(inner.split(','), Number);
}

function checkEmbedder(embedder: unknown): void {
  if (typeof embedder !== 'string' || embedder === '') throw new TypeError(`not an embedder id: ${String(embedder)}`);
}

function checkRepoId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new TypeError(`not a repository id: ${String(id)}`);
  return id;
}

function checkSpaceId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw new StoreError(`not a vector space id: ${String(id)}`, 'CORRUPT');
  return id;
}
