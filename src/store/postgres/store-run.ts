/**
 * An indexing run into the shared store (../store.ts's StoreRun): its own connection, and a
 * PostgresWriter (run-writer.ts) under the repository's lease, whose writes are committed in one
 * transaction at its end, so that searches see the repository as it was until the run commits
 * (and are answered meanwhile), and a run that fails, is aborted or killed leaves it as it was.
 * Embeddings are reused by document hash from any repository of the store; the model's answers
 * are not cached here (unchanged files are never analysed again anyway).
 */
import { StoreError } from '../errors.js';
import { defaultRepositoryName } from '../repository-name.js';
import type { EmbedderRecord, FileRow, LastRun } from '../rows.js';
import type { IndexTotals, StoreRun, WriterClaim } from '../store.js';
import type { FileWrite, WrittenFile } from '../writes.js';
import type { PostgresLocation } from './admin.js';
import { PostgresConnection } from './connection.js';
import { PostgresWriter } from './run-writer.js';
import { DEFAULT_POSTGRES_SCHEMA } from './schema.js';

/** What the shared store's summary and status say of its vectors. */
export const VECTOR_INDEX_DESCRIPTION = 'pgvector HNSW (inner product)';

export class PostgresStoreRun implements StoreRun {
  readonly #connection: PostgresConnection;
  readonly #writer: PostgresWriter;

  private constructor(connection: PostgresConnection, writer: PostgresWriter) {
    this.#connection = connection;
    this.#writer = writer;
  }

  static async begin(store: PostgresLocation, claim: WriterClaim): Promise<PostgresStoreRun> {
    const connection = await PostgresConnection.open(store.url, {
      schema: store.schema ?? DEFAULT_POSTGRES_SCHEMA,
      // The lease's, the run's, and one to make the repository's vectors' partition apart (vector-space.ts).
      maxConnections: 3,
      migrate: true,
    });
    try {
      const writer = await PostgresWriter.begin(connection, {
        repo: claim.repo ?? defaultRepositoryName(claim.root),
        root: claim.root,
        waitMs: claim.waitMs,
      });
      return new PostgresStoreRun(connection, writer);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  get location(): string {
    return this.#connection.location;
  }

  get embedder(): EmbedderRecord | undefined {
    return this.#writer.state.embedder;
  }

  otherRepositories(): Promise<string[]> {
    return this.#writer.otherRepositories();
  }

  rebuildRefused(others: readonly string[], recorded: EmbedderRecord, next: EmbedderRecord): StoreError {
    const shown = (embedder: EmbedderRecord, other: EmbedderRecord) =>
      embedder.id === other.id ? `${embedder.id} (${embedder.dimension} dimensions)` : embedder.id;
    return new StoreError(
      `the store holds other repositories (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}) embedded with ${shown(recorded, next)}: ` +
        `a rebuild with ${shown(next, recorded)} would leave their vectors unsearchable; index into another schema (--schema), or drop them first (--drop --repo <name>)`,
      'EMBEDDER_MISMATCH',
    );
  }

  claimEmbedder(embedder: EmbedderRecord, host: string | undefined, rebuild: boolean): Promise<void> {
    return this.#writer.useEmbedder(embedder, host, rebuild);
  }

  /** Nothing to make ready: the transaction opens at the first write (run-writer.ts). */
  async startWriting(): Promise<void> {}

  files(): Promise<Map<string, FileRow>> {
    return this.#writer.files();
  }

  elementHashes(fileId: number): string[] {
    return this.#writer.elementHashes(fileId);
  }

  embeddings(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    return this.#writer.embeddings(hashes);
  }

  /** The model's answers are not cached here (unchanged files are never analysed again anyway). */
  analysisCache(): undefined {
    return undefined;
  }

  write(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    return this.#writer.write(writes);
  }

  remove(fileIds: readonly number[]): Promise<number[]> {
    return this.#writer.remove(fileIds);
  }

  async finish(wrote: boolean): Promise<IndexTotals> {
    const { elements } = await this.#writer.counts();
    return { elements, index: { description: VECTOR_INDEX_DESCRIPTION, vectors: elements, written: wrote } };
  }

  /** Nothing of a run that did not finish is kept: the repository stays as it was. */
  abandon(): Promise<void> {
    return this.#writer.rollback();
  }

  commit(end: { commit: string | undefined; at: number; lastRun: LastRun }): Promise<number> {
    return this.#writer.commit(end);
  }

  async close(): Promise<void> {
    try {
      await this.#writer.rollback();
    } finally {
      await this.#connection.close();
    }
  }
}
