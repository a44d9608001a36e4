/**
 * Writes and removes elements' vectors in the Postgres store (vector-space.ts says where), and
 * finds embeddings to reuse by (embedder, document hash) across repositories: an element whose
 * document some element of any repository holds already is never embedded again. Unlike the
 * embedded store's `embeddings` cache (vector-rows.ts), nothing is kept apart: the live
 * elements' vectors are the cache, so that writers of different repositories never wait for
 * each other on a shared row (a document in both would be one key of one table).
 *
 * Every call runs on the caller's client, inside the caller's transaction, and costs a few round
 * trips whatever the batch's size (the space's lookup, pgvector's type for a put, then one
 * statement). Spaces are looked up each time, never cached: a space recorded in a transaction
 * that rolls back is gone. A run, which records its own space, builds putStatement and reads
 * embeddingsIn with it instead (run-writer.ts).
 */
import { quoteSchema } from './schema.js';
import type { Queryable as Client } from './serial.js';
import { integerArray, textArray } from './array-literal.js';
import { vectorArrayParameter, vectorFromSend, vectorTypeOid } from './vector-binary.js';
import { StoreError } from '../errors.js';
import { runStatement, type Statement } from './statement.js';
import { findVectorSpace, requireVectorSpace, spaceTables, type VectorSpace } from './vector-space.js';

export interface ElementVector {
  /** The element's id (a row of `elements` in the same repository). */
  id: number;
  /** The hash of the document embedded (the key the embedding is reused by). */
  documentHash: string;
  vector: ArrayLike<number>;
}

export class VectorWriter {
  readonly #schema: string;
  readonly #s: string;

  /** A writer of the schema `schema` (migrated: schema.ts). */
  constructor(schema: string) {
    this.#s = quoteSchema(schema);
    this.#schema = schema;
  }

  /**
   * Puts elements' vectors of the embedder (recorded: recordVectorSpace) into a repository,
   * replacing an element's previous one (found again by its document hash for reuse). A
   * vector of another dimension is a StoreError (EMBEDDER_MISMATCH), NaN or an infinity a
   * RangeError; nothing is written then.
   */
  async put(client: Client, embedder: string, repoId: number, elements: readonly ElementVector[]): Promise<void> {
    checkRepo(repoId);
    if (elements.length === 0) return;
    const space = await requireVectorSpace(client, this.#schema, embedder);
    await runStatement(client, this.putStatement(space, repoId, elements, await vectorTypeOid(client)));
  }

  /**
   * put's statement, built now to run later (write-pipeline.ts), for a space the caller found
   * (a run records its own: run-writer.ts). Checks as put does.
   */
  putStatement(space: VectorSpace, repoId: number, elements: readonly ElementVector[], vectorOid: number): Statement {
    checkRepo(repoId);
    const ids: number[] = [];
    const hashes: string[] = [];
    const seen = new Set<number>();
    for (const element of elements) {
      checkElement(element.id);
      if (seen.has(element.id)) throw new TypeError(`element ${element.id} is twice in the batch`);
      seen.add(element.id);
      if (typeof element.documentHash !== 'string' || element.documentHash === '')
        throw new TypeError(`element ${element.id}: not a document hash: ${String(element.documentHash)}`);
      ids.push(element.id);
      hashes.push(element.documentHash);
    }
    const vectors = vectorArrayParameter(
      elements.map((element) => element.vector),
      space.dimension,
      vectorOid,
      (i) => `the vector of element ${elements[i]!.id} (${i} of the batch)`,
    );
    const { vectors: table } = spaceTables(this.#schema, space);
    const d = space.dimension;
    return {
      text: `INSERT INTO ${table} (repo_id, element_id, document_hash, embedding)
         SELECT $1, element_id, document_hash, embedding
         FROM unnest($2::bigint[], $3::text[], $4::vector(${d})[]) AS i(element_id, document_hash, embedding)
         ON CONFLICT (repo_id, element_id) DO UPDATE SET document_hash = excluded.document_hash, embedding = excluded.embedding`,
      values: [repoId, integerArray(ids), textArray(hashes), vectors],
      failure: (error: unknown) =>
        // check_violation: no partition holds the repository (vector-space.ts, placeRepository).
        (error as { code?: unknown } | null)?.code === '23514'
          ? new StoreError(
              `the repository ${repoId} has no partition for the vectors of ${JSON.stringify(space.embedder)} in the PostgreSQL store: place it first`,
              'NOT_FOUND',
            )
          : error,
    };
  }

  /** Removes elements' vectors of the embedder from a repository; returns how many there were. */
  async remove(client: Client, embedder: string, repoId: number, elementIds: readonly number[]): Promise<number> {
    checkRepo(repoId);
    for (const id of elementIds) checkElement(id);
    if (elementIds.length === 0) return 0;
    const space = await findVectorSpace(client, this.#schema, embedder);
    if (!space) return 0;
    const { rowCount } = await client.query(
      `DELETE FROM ${spaceTables(this.#schema, space).vectors} WHERE repo_id = $1 AND element_id = ANY($2::bigint[])`,
      [repoId, elementIds],
    );
    return rowCount ?? 0;
  }

  /** Removes a repository's vectors of every embedder. */
  async dropRepository(client: Client, repoId: number): Promise<number> {
    checkRepo(repoId);
    const { rows } = await client.query<{ id: number; embedder: string; dimension: number; indexed: boolean }>(
      `SELECT id, embedder, dimension, indexed FROM ${this.#s}.vector_spaces ORDER BY id`,
    );
    let removed = 0;
    for (const space of rows) {
      const { rowCount } = await client.query(
        `DELETE FROM ${spaceTables(this.#schema, space).vectors} WHERE repo_id = $1`,
        [repoId],
      );
      removed += rowCount ?? 0;
    }
    return removed;
  }

  /** The embedding of a document of an embedder, from any repository's elements; undefined when none holds it. */
  async getEmbedding(client: Client, embedder: string, documentHash: string): Promise<Float32Array | undefined> {
    return (await this.getEmbeddings(client, embedder, [documentHash])).get(documentHash);
  }

  /** The embeddings of some documents of an embedder, by hash, from any repository (those none holds are absent). */
  async getEmbeddings(
    client: Client,
    embedder: string,
    documentHashes: readonly string[],
  ): Promise<Map<string, Float32Array>> {
    for (const hash of documentHashes)
      if (typeof hash !== 'string') throw new TypeError(`not a document hash: ${String(hash)}`);
    const out = new Map<string, Float32Array>();
    if (documentHashes.length === 0) return out;
    const space = await findVectorSpace(client, this.#schema, embedder);
    return space ? this.embeddingsIn(client, space, documentHashes) : out;
  }

  /** getEmbeddings in a space the caller found (a run records its own: run-writer.ts). */
  async embeddingsIn(
    client: Client,
    space: VectorSpace,
    documentHashes: readonly string[],
  ): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (documentHashes.length === 0) return out;
    // In vector_send's bytes: no float printed and parsed again (vector-binary.ts).
    const { rows } = await client.query<{ document_hash: string; embedding: Buffer }>(
      `SELECT DISTINCT ON (document_hash) document_hash, vector_send(embedding) AS embedding
       FROM ${spaceTables(this.#schema, space).vectors} WHERE document_hash = ANY($1::text[])`,
      [textArray(documentHashes)],
    );
    for (const row of rows) out.set(row.document_hash, vectorFromSend(row.embedding));
    return out;
  }
}

function checkRepo(id: number): void {
  if (!Number.isSafeInteger(id)) throw new TypeError(`not a repository id: ${id}`);
}

function checkElement(id: number): void {
  if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`not an element id: ${id}`);
}
