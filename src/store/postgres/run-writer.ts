/**
 * One indexing run's writes into the PostgreSQL store (../writes.ts), for its PostgresStoreRun
 * (store-run.ts), under the repository's lease, committed in ONE transaction on one connection:
 *
 * - One writer per repository at a time: the lease (run-lease.ts), claimed in a statement of its
 *   own before anything else. Another run of the same repository fails at once (StoreError
 *   LOCKED), or waits up to `waitMs`; runs of other repositories go on at the same time (their
 *   rows never meet: every table is keyed by repository, and embeddings are reused from the
 *   vectors themselves, not from a shared cache row two writers could both insert).
 * - On a server that serves one transaction at a time (PGlite: one backend for every
 *   connection), the writes are held until the commit (up to HELD_ELEMENTS_MAX elements:
 *   held-writes.ts), then written in the run's one transaction: none is open while files are
 *   read, analysed and embedded, so the server answers searches and other indexers meanwhile.
 *   On a PostgreSQL server the transaction opens at the run's first write. Readers see the
 *   repository as it was until the run commits, then as it is: never half-written, never empty.
 *   A run that fails, is aborted or is killed leaves it as it was (the server rolls back the
 *   transaction of a connection that closes), and a repository indexed for the first time is
 *   not listed before its commit.
 * - A batch of files costs a handful of statements, whatever its size: one per table. They are
 *   built, then queued (write-pipeline.ts): the server runs a batch while the next is built.
 *
 * What an element holds is written as the embedded store writes it (../element-texts.ts), and
 * its words scored as FTS5 scores them (lexical-writer.ts).
 */
import type pg from 'pg';
import { type PlacedElement, planElements } from '../element-plan.js';
import { StoreError } from '../errors.js';
import type { EmbedderRecord, FileRow } from '../rows.js';
import { badRepositoryName, isRepositoryName } from '../repository-name.js';
import type { FileWrite, WrittenFile } from '../writes.js';
import type { PostgresConnection } from './connection.js';
import { type HeldStep, HeldWrites } from './held-writes.js';
import { fileBatch, inParts, QUEUED_ELEMENTS } from './file-batch.js';
import { deleteRows, reserveIds, touchFiles } from './file-writes.js';
import { LexicalStats, LexicalWriter } from './lexical-writer.js';
import { MergedLookups } from './merged-lookups.js';
import { analyzeAfterLoad } from './load-statistics.js';
import { inOwnTransaction, WriterLease } from './run-lease.js';
import {
  deleteRepositoryRows,
  otherRepositoryNames,
  readRepository,
  readState,
  repositoryCounts,
  type State,
} from './run-state.js';
import { WriteTransaction } from './run-transaction.js';
import { type Queryable, serialQueries } from './serial.js';
import { runStatement } from './statement.js';
import { buildVectorIndex, spaceOfRun, type VectorSpace } from './vector-space.js';
import { VectorWriter } from './vector-writer.js';
import { WritePipeline, type WriteStep } from './write-pipeline.js';

/** What a run needs to start. */
export interface PostgresWriterOptions {
  /** The repository's name in the store, and the directory it is indexed from. */
  repo: string;
  root: string;
  /** How long to wait for another run of the same repository (0: fail at once). */
  waitMs: number;
  /** Elements held before the transaction opens on a server of one backend (held-writes.ts); 0 writes as a PostgreSQL server is written. */
  holdElements?: number;
}

export class PostgresWriter {
  readonly #connection: PostgresConnection;
  /** The run's connection, and its queries one after another (a file's vectors are looked up while a batch is written). */
  readonly #connectionClient: pg.PoolClient;
  readonly #client: Queryable;
  readonly #s: string;
  readonly #lexical: LexicalWriter;
  readonly #vectors: VectorWriter;
  readonly #lease: WriterLease;
  /** The repository's id: undefined until the transaction makes the row of a new repository. */
  #repoId: number | undefined;
  /** Where the run indexes from, when the repository's row must say so (new, or checked out elsewhere). */
  #placeAt: string | undefined;
  readonly repoName: string;
  /** The state when the run began (the embedder it must match). */
  readonly state: State;
  #embedder: string | undefined;
  /** The embedder's space, which the vectors are written to, and pgvector's type (vector-binary.ts). */
  #space: { space: VectorSpace; vectorOid: number } | undefined;
  /** The space whose partition for this repository has no HNSW index yet: built at the commit, over the vectors of the first load. */
  #unindexedSpace: VectorSpace | undefined;
  /** Whether the server serves one transaction at a time (PGlite): nothing is made apart then. */
  readonly #sharedBackend: boolean;
  /** Elements this run wrote: a large load is followed by fresh planner statistics (analyzeAfterLoad). */
  #addedElements = 0;
  #files = new Map<string, FileRow>();
  /** Each file's elements, as written so far in this run. */
  #elements = new Map<number, PlacedElement[]>();
  readonly #held: HeldWrites;
  /** The lexical statistics of the batches built, written at the commit (file-batch.ts). */
  readonly #stats = new LexicalStats();
  /** The batches built and queued, running in the run's transaction. */
  readonly #pipeline = new WritePipeline();
  /** Lookups of stored vectors, those asked meanwhile merged into one query. */
  readonly #lookups = new MergedLookups((hashes) => this.#readEmbeddings(hashes));
  /** The batch being built: one at a time, each planned against the one before. */
  #building: Promise<unknown> = Promise.resolve();
  readonly #transaction: WriteTransaction;
  #open = true;

  private constructor(
    connection: PostgresConnection,
    client: pg.PoolClient,
    lease: WriterLease,
    repo: { id: number | undefined; name: string; placeAt: string | undefined },
    state: State,
    backend: { shared: boolean; holdElements: number | undefined },
  ) {
    const sharedBackend = backend.shared;
    this.#held = new HeldWrites(sharedBackend, backend.holdElements);
    this.#sharedBackend = sharedBackend;
    this.#connection = connection;
    this.#lease = lease;
    this.#connectionClient = client;
    this.#client = serialQueries(client);
    this.#transaction = new WriteTransaction(this.#client, this.#pipeline);
    this.#s = connection.s;
    this.#lexical = new LexicalWriter(connection.schema);
    this.#vectors = new VectorWriter(connection.schema);
    this.#repoId = repo.id;
    this.#placeAt = repo.placeAt;
    this.repoName = repo.name;
    this.state = state;
  }

  /**
   * Begins a run: the repository's lease, then what the repository holds now (its row is made,
   * or moved to `root` when it was indexed from elsewhere, in the run's transaction).
   */
  static async begin(connection: PostgresConnection, options: PostgresWriterOptions): Promise<PostgresWriter> {
    if (!isRepositoryName(options.repo)) throw new StoreError(badRepositoryName(options.repo), 'BAD_NAME');
    const lease = await WriterLease.take(connection, options);
    let client: pg.PoolClient;
    try {
      client = await connection.pool.connect();
    } catch (error) {
      await lease.release();
      throw connection.failure(error);
    }
    try {
      // One snapshot: the state, the repository's row, its files and elements.
      return await inOwnTransaction(
        client,
        async () => {
          const state = await readState(client, connection.s);
          // Two connections, one backend: PGlite.
          const { rows: backend } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          const { rows } = await client.query<{ id: number; root: string }>(
            `SELECT id, root FROM ${connection.s}.repositories WHERE name = $1`,
            [options.repo],
          );
          const found = rows[0];
          // The same repository checked out elsewhere (a CI workspace): paths are relative, unchanged files stay unchanged.
          const placeAt = found?.root === options.root ? undefined : options.root;
          const repo = { id: found?.id, name: options.repo, placeAt };
          const shared = backend[0]!.pid === lease.holderPid;
          const run = new PostgresWriter(connection, client, lease, repo, state, {
            shared,
            holdElements: options.holdElements,
          });
          await run.#load();
          return run;
        },
        'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY',
      );
    } catch (error) {
      client.release(error instanceof Error ? error : undefined);
      await lease.release();
      throw connection.failure(error);
    }
  }

  /** The names of the store's other repositories. */
  async otherRepositories(): Promise<string[]> {
    return this.#transaction.read(() => otherRepositoryNames(this.#client, this.#s, this.repoName));
  }

  /**
   * Records the embedder of the store (with the table its vectors go to), or checks it is the
   * one recorded; with `reset`, this repository starts afresh and a store of no other
   * repository takes the new embedder.
   */
  async useEmbedder(embedder: EmbedderRecord, host: string | undefined, reset: boolean): Promise<void> {
    const recorded = this.state.embedder;
    const differs = recorded && (recorded.id !== embedder.id || recorded.dimension !== embedder.dimension);
    if (differs && !reset)
      throw new StoreError(
        `this store was built with the embedder ${recorded.id} (${recorded.dimension} dimensions), not ${embedder.id} (${embedder.dimension}); ` +
          `use ${recorded.id} again, or rebuild the repository with the new one (--rebuild) once no other repository uses the store`,
        'EMBEDDER_MISMATCH',
      );
    if (reset) {
      await this.#hold(() => this.#clear(), 0);
      this.#files = new Map();
      this.#elements = new Map();
    }
    await this.#hold(async () => {
      if (!recorded || differs || host !== this.state.embedderHost)
        await this.#client.query(`UPDATE ${this.#s}.state SET embedder = $1, dimension = $2, embedder_host = $3`, [
          embedder.id,
          embedder.dimension,
          host ?? null,
        ]);
      const { schema, pool } = this.#connection;
      const run = await spaceOfRun(this.#client, schema, embedder, this.#id(), this.#sharedBackend ? undefined : pool);
      if (run.indexPending) this.#unindexedSpace = run.space;
      this.#space = run;
    }, 0);
    this.#embedder = embedder.id;
  }

  elementHashes(fileId: number): string[] {
    return (this.#elements.get(fileId) ?? []).map((element) => element.hash);
  }

  async files(): Promise<Map<string, FileRow>> {
    return new Map(this.#files);
  }

  /**
   * Embeddings of documents that some element of any repository holds, by hash. Not after the
   * queued batches: their vectors are found in memory until they are written, and the query runs
   * after the statement running now (the run's connection takes them in turn), whose batch it sees.
   */
  async embeddings(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    if (hashes.length === 0 || !this.#embedder) return new Map();
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const held = this.#held.vector(hash) ?? this.#pipeline.vector(hash);
      if (held) found.set(hash, held);
    }
    const rest = hashes.filter((hash) => !found.has(hash));
    if (rest.length === 0) return found;
    this.#pipeline.check();
    for (const [hash, vector] of await this.#lookups.find(rest).catch(this.#queuedFailureFirst))
      found.set(hash, vector);
    return found;
  }

  /** A queued statement that failed aborted the transaction, and what was asked after it: its error is the one to tell. */
  readonly #queuedFailureFirst = (error: unknown): never => {
    this.#pipeline.check();
    throw error;
  };

  /** Stored vectors by hash, in the run's space once it has one (its transaction open), else in the embedder's. */
  #readEmbeddings(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const space = this.#space?.space;
    if (this.#transaction.open && space) return this.#vectors.embeddingsIn(this.#client, space, hashes);
    const embedder = this.#embedder!;
    return this.#transaction.read(() => this.#vectors.getEmbeddings(this.#client, embedder, hashes));
  }

  async write(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    this.#checkOpen();
    if (this.#transaction.open) return this.#failing(() => this.#writeNow(writes));
    // What the write will do, planned as file-batch.ts plans it when the write is made.
    const results = writes.map((w) => {
      if (w.kind === 'touch') return { added: 0, removed: 0, kept: 0 };
      const fileId = this.#files.get(w.update.path)?.id;
      const plan = planElements(
        (fileId === undefined ? undefined : this.#elements.get(fileId)) ?? [],
        w.documents,
        w.lineBytes,
      );
      this.#held.keepVectors(w.vectors);
      return { added: plan.added.length, removed: plan.removed.length, kept: plan.kept.length };
    });
    const elements = writes.reduce((sum, w) => sum + (w.kind === 'write' ? w.documents.length : 0), 0);
    await this.#hold(async () => void (await this.#writeNow(writes)), elements);
    return results;
  }

  async remove(fileIds: readonly number[]): Promise<number[]> {
    this.#checkOpen();
    if (fileIds.length === 0) return [];
    const counts = fileIds.map((id) => this.#elements.get(id)?.length ?? 0);
    await this.#hold(() => this.#removeNow(fileIds), 0);
    return counts;
  }

  /**
   * Commits the run: its held writes, the repository's commit and time, its lease ended, the
   * index's generation moved on (what readers' caches follow). Returns the new generation.
   */
  async commit(record: { commit: string | undefined; at: number; lastRun: object }): Promise<number> {
    this.#checkOpen();
    return this.#failing(async () => {
      await this.#flush();
      await this.#building;
      this.#pipeline.queue(this.#statsStep());
      await this.#pipeline.settled();
      if (this.#unindexedSpace)
        await buildVectorIndex(this.#client, this.#connection.schema, this.#unindexedSpace, this.#id());
      await this.#client.query(
        `UPDATE ${this.#s}.repositories SET git_commit = $2, indexed_at = $3, last_run = $4 WHERE id = $1`,
        [this.#id(), record.commit ?? null, record.at, JSON.stringify(record.lastRun)],
      );
      await this.#lease.endIn(this.#client);
      // Last, so that runs of other repositories wait for this one row only while this commit is made.
      const { rows } = await this.#client.query<{ generation: number }>(
        `UPDATE ${this.#s}.state SET generation = generation + 1 RETURNING generation`,
      );
      await this.#client.query('COMMIT');
      this.#transaction.ended();
      const { schema } = this.#connection;
      const vectors = { embedder: this.#embedder, repoId: this.#id() };
      await this.#release(await analyzeAfterLoad(this.#client, this.#s, schema, vectors, this.#addedElements));
      return rows[0]!.generation;
    });
  }

  /** Leaves the store as it was before the run (nothing when it committed already). */
  async rollback(): Promise<void> {
    if (!this.#open) return;
    try {
      // Nothing queued runs after the ROLLBACK, nor is a batch still being built on the connection it releases.
      await Promise.all([this.#pipeline.stop(), this.#building]);
      if (this.#transaction.open) await this.#client.query('ROLLBACK');
      await this.#release();
    } catch (error) {
      await this.#release(error as Error);
    }
  }

  /** Elements and files of the repository in the store now, the run's writes included (they are written now, in its transaction). */
  async counts(): Promise<{ files: number; elements: number }> {
    return this.#failing(async () => {
      await this.#flush();
      await this.#pipeline.settled();
      return repositoryCounts(this.#client, this.#s, this.#id());
    });
  }

  /** Holds a write until the transaction (made at once, after the batches queued, when it is open or too much is held). */
  async #hold(step: HeldStep, elements: number): Promise<void> {
    if (this.#transaction.open)
      return this.#failing(async () => {
        await this.#pipeline.settled();
        await step();
      });
    if (this.#held.hold(step, elements)) await this.#failing(() => this.#flush());
  }

  /** Opens the run's transaction and makes the held writes in it, the repository's row first. */
  #flush(): Promise<void> {
    return this.#transaction.begin(() => this.#firstInTransaction());
  }

  /** The repository's row, made or moved, then the held writes. */
  async #firstInTransaction(): Promise<void> {
    if (this.#repoId === undefined)
      this.#repoId = (
        await this.#client.query<{ id: number }>(
          `INSERT INTO ${this.#s}.repositories (name, root) VALUES ($1, $2) RETURNING id`,
          [this.repoName, this.#placeAt],
        )
      ).rows[0]!.id;
    else if (this.#placeAt !== undefined)
      await this.#client.query(`UPDATE ${this.#s}.repositories SET root = $2 WHERE id = $1`, [
        this.#repoId,
        this.#placeAt,
      ]);
    await this.#held.replay();
  }

  /**
   * Builds a batch's statements and queues them (after the batch being built, if one is), a part
   * of about QUEUED_ELEMENTS elements at a time: the server runs each part while the next is built.
   */
  #writeNow(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    const built = this.#building.then(async () => {
      const results: WrittenFile[] = [];
      for (const part of inParts(writes, QUEUED_ELEMENTS)) results.push(...(await this.#buildBatch(part)));
      return results;
    });
    this.#building = built.catch(() => {});
    return built;
  }

  async #buildBatch(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    this.#pipeline.check();
    const steps: WriteStep[] = [];
    const touches = writes.filter((w) => w.kind === 'touch');
    if (touches.length > 0) steps.push(() => runStatement(this.#client, touchFiles(this.#s, this.#id(), touches)));
    const files = writes.filter((w) => w.kind === 'write');
    const batch = files.length > 0 ? await this.#fileBatch(files).catch(this.#queuedFailureFirst) : undefined;
    this.#pipeline.queue([...steps, ...(batch?.steps ?? [])], batch?.vectors);
    let next = 0;
    return writes.map((w) => (w.kind === 'touch' ? { added: 0, removed: 0, kept: 0 } : batch!.results[next++]!));
  }

  /** Files' new states as statements (file-batch.ts); the run's files and elements are theirs from now. */
  async #fileBatch(writes: readonly Extract<FileWrite, { kind: 'write' }>[]) {
    const { pool } = this.#connection;
    // Reserved apart, so as not to wait for the batches queued on the run's connection (PGlite: one backend).
    const reserver = this.#sharedBackend ? this.#client : pool;
    const batch = await fileBatch(
      {
        s: this.#s,
        repoId: this.#id(),
        client: this.#client,
        files: this.#files,
        elements: this.#elements,
        lexical: this.#lexical,
        stats: this.#stats,
        vectors: this.#vectors,
        ...this.#requireSpace(),
        reserve: (count) => reserveIds(reserver, this.#s, count),
        embeddings: (hashes) => this.embeddings(hashes),
        removeElements: (ids) => () => this.#removeElements(ids),
      },
      writes,
    );
    this.#addedElements += batch.added;
    for (const row of batch.files) {
      this.#files.set(row.path, row);
      this.#elements.set(row.id, batch.elements.get(row.id)!);
    }
    return batch;
  }

  async #removeNow(fileIds: readonly number[]): Promise<void> {
    await this.#building.then(() => this.#pipeline.settled());
    await this.#removeElements(fileIds.flatMap((id) => (this.#elements.get(id) ?? []).map((e) => e.id)));
    for (const table of ['occurrences', 'files'] as const)
      await runStatement(this.#client, deleteRows(this.#s, table, this.#id(), fileIds));
    const gone = new Set(fileIds);
    for (const [path, row] of this.#files) if (gone.has(row.id)) this.#files.delete(path);
    for (const id of fileIds) this.#elements.delete(id);
  }

  async #load(): Promise<void> {
    // A repository indexed for the first time holds nothing yet.
    if (this.#repoId === undefined) return;
    ({ files: this.#files, elements: this.#elements } = await readRepository(this.#client, this.#s, this.#id()));
  }

  /** The writing of the lexical statistics gathered and not written yet, if any. */
  #statsStep(): WriteStep[] {
    const stats = this.#lexical.statsStatement(this.#id(), this.#stats);
    return stats ? [() => runStatement(this.#client, stats)] : [];
  }

  /** Forgets every file and element of the repository (a rebuild). */
  async #clear(): Promise<void> {
    await this.#pipeline.settled();
    await deleteRepositoryRows(this.#client, this.#s, this.#id(), { lexical: this.#lexical, vectors: this.#vectors });
    this.#files = new Map();
    this.#elements = new Map();
  }

  /** Removes elements with their words and vectors. */
  async #removeElements(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#lexical.remove(this.#client, this.#id(), ids);
    if (this.#embedder) await this.#vectors.remove(this.#client, this.#embedder, this.#id(), ids);
    await runStatement(this.#client, deleteRows(this.#s, 'elements', this.#id(), ids));
  }

  #requireSpace(): { space: VectorSpace; vectorOid: number } {
    // A program's own mistake: the indexer names the embedder before it writes.
    if (!this.#space) throw new TypeError('PostgresWriter: useEmbedder() must come before writes');
    return this.#space;
  }

  #checkOpen(): void {
    if (!this.#open)
      throw new StoreError(`the run over ${this.repoName} in ${this.#connection.location} has ended`, 'CLOSED');
  }

  /** Runs a step of the run; a connection that broke is reported as the store being unreachable. */
  async #failing<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  /** The repository's id, once the run's transaction has made its row. */
  #id(): number {
    // A program's own mistake: the row is made as the transaction opens, before any held write runs.
    if (this.#repoId === undefined)
      throw new TypeError('PostgresWriter: the repository has no row before the transaction');
    return this.#repoId;
  }

  async #release(error?: Error): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    this.#connectionClient.release(error);
    await this.#lease.release();
  }
}
