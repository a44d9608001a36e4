/**
 * One indexing run's writes into the PostgreSQL store (../writes.ts's RunWriter), under the
 * repository's lease, committed in ONE transaction on one connection:
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
 * - A batch of files costs a handful of statements, whatever its size: one per table.
 *
 * What an element holds is written as the embedded store writes it (../element-texts.ts), and
 * its words scored as FTS5 scores them (lexical-writer.ts).
 */
import type pg from 'pg';
import { elementNames, elementWords } from '../element-texts.js';
import { type ElementPlan, type PlacedElement, planElements } from '../element-plan.js';
import { StoreError } from '../errors.js';
import type { EmbedderRecord, FileRow } from '../rows.js';
import { badRepositoryName, isRepositoryName } from '../repository-name.js';
import type { FileWrite, RunWriter, WrittenFile } from '../writes.js';
import type { PostgresConnection } from './connection.js';
import { type HeldStep, HeldWrites } from './held-writes.js';
import { LexicalWriter, type LexicalElement } from './lexical-writer.js';
import { analyzeAfterLoad } from './load-statistics.js';
import { inOwnTransaction, RunLease } from './run-lease.js';
import { deleteRepositoryRows, readRepository, readState, type State } from './run-state.js';
import { type Queryable, serialQueries } from './serial.js';
import { insertElements, moveElements, newElementIds, replaceOccurrences, upsertFiles } from './file-writes.js';
import { buildVectorIndex, placeRepository, recordVectorSpace, type VectorSpace } from './vector-space.js';
import { VectorWriter, type ElementVector } from './vector-writer.js';

/** What a run needs to start. */
export interface PostgresRunOptions {
  /** The repository's name in the store, and the directory it is indexed from. */
  repo: string;
  root: string;
  /** How long to wait for another run of the same repository (0: fail at once). */
  waitMs: number;
}

export class PostgresRun implements RunWriter {
  readonly #connection: PostgresConnection;
  /** The run's connection, and its queries one after another (a file's vectors are looked up while a batch is written). */
  readonly #connectionClient: pg.PoolClient;
  readonly #client: Queryable;
  readonly #s: string;
  readonly #lexical: LexicalWriter;
  readonly #vectors: VectorWriter;
  readonly #lease: RunLease;
  /** The repository's id: undefined until the transaction makes the row of a new repository. */
  #repoId: number | undefined;
  /** Where the run indexes from, when the repository's row must say so (new, or checked out elsewhere). */
  #placeAt: string | undefined;
  readonly repoName: string;
  /** The state when the run began (the embedder it must match). */
  readonly state: State;
  #embedder: string | undefined;
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
  #inTransaction = false;
  #open = true;

  private constructor(
    connection: PostgresConnection,
    client: pg.PoolClient,
    lease: RunLease,
    repo: { id: number | undefined; name: string; placeAt: string | undefined },
    state: State,
    sharedBackend: boolean,
  ) {
    this.#held = new HeldWrites(sharedBackend);
    this.#sharedBackend = sharedBackend;
    this.#connection = connection;
    this.#lease = lease;
    this.#connectionClient = client;
    this.#client = serialQueries(client);
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
  static async begin(connection: PostgresConnection, options: PostgresRunOptions): Promise<PostgresRun> {
    if (!isRepositoryName(options.repo)) throw new StoreError(badRepositoryName(options.repo), 'BAD_NAME');
    const lease = await RunLease.take(connection, options);
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
          const run = new PostgresRun(connection, client, lease, repo, state, backend[0]!.pid === lease.holderPid);
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
    const { rows } = await this.#read(() =>
      this.#client.query<{ name: string }>(`SELECT name FROM ${this.#s}.repositories WHERE name <> $1 ORDER BY id`, [
        this.repoName,
      ]),
    );
    return rows.map((row) => row.name);
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
      const space = await recordVectorSpace(this.#client, schema, embedder.id, embedder.dimension);
      // A space other connections see gets this repository's partition apart (placeRepository says why).
      const apart = space.created || this.#sharedBackend ? {} : { apart: pool };
      const placed = await placeRepository(this.#client, schema, space, this.#id(), { indexLater: true, ...apart });
      if (placed.indexPending) this.#unindexedSpace = space;
    }, 0);
    this.#embedder = embedder.id;
  }

  elementHashes(fileId: number): string[] {
    return (this.#elements.get(fileId) ?? []).map((element) => element.hash);
  }

  async files(): Promise<Map<string, FileRow>> {
    return new Map(this.#files);
  }

  /** Embeddings of documents that some element of any repository holds, by hash. */
  async embeddings(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    if (hashes.length === 0 || !this.#embedder) return new Map();
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const held = this.#held.vector(hash);
      if (held) found.set(hash, held);
    }
    const rest = hashes.filter((hash) => !found.has(hash));
    if (rest.length === 0) return found;
    const embedder = this.#embedder;
    for (const [hash, vector] of await this.#read(() => this.#vectors.getEmbeddings(this.#client, embedder, rest)))
      found.set(hash, vector);
    return found;
  }

  async write(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    this.#checkOpen();
    if (this.#inTransaction) return this.#failing(() => this.#writeNow(writes));
    // What the write will do, planned as #writeFiles plans it when the write is made.
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
      this.#inTransaction = false;
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
      if (this.#inTransaction) await this.#client.query('ROLLBACK');
      await this.#release();
    } catch (error) {
      await this.#release(error as Error);
    }
  }

  /** Elements and files of the repository in the store now, the run's writes included (they are written now, in its transaction). */
  async counts(): Promise<{ files: number; elements: number }> {
    return this.#failing(async () => {
      await this.#flush();
      const { rows } = await this.#client.query<{ files: number; elements: number }>(
        `SELECT count(*) AS files, coalesce(sum(element_count), 0)::bigint AS elements FROM ${this.#s}.files WHERE repo_id = $1`,
        [this.#id()],
      );
      return rows[0]!;
    });
  }

  /** Reads in the run's transaction when it is open, else in a read-only one of their own (inOwnTransaction says why). */
  #read<T>(work: () => Promise<T>): Promise<T> {
    return this.#inTransaction ? work() : inOwnTransaction(this.#client, work, 'BEGIN READ ONLY');
  }

  /** Holds a write until the transaction (made at once when it is open already, or when too much is held). */
  async #hold(step: HeldStep, elements: number): Promise<void> {
    if (this.#inTransaction) return this.#failing(step);
    if (this.#held.hold(step, elements)) await this.#failing(() => this.#flush());
  }

  /** Opens the run's transaction and makes the held writes in it, the repository's row first. */
  async #flush(): Promise<void> {
    if (this.#inTransaction) return;
    await this.#client.query('BEGIN');
    this.#inTransaction = true;
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

  async #writeNow(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    const touches = writes.filter((w) => w.kind === 'touch');
    if (touches.length > 0)
      await this.#client.query(
        `UPDATE ${this.#s}.files f SET size = t.size, mtime_ms = t.mtime_ms
         FROM unnest($2::bigint[], $3::bigint[], $4::float8[]) AS t(id, size, mtime_ms)
         WHERE f.repo_id = $1 AND f.id = t.id`,
        [this.#id(), touches.map((w) => w.row.id), touches.map((w) => w.size), touches.map((w) => w.mtimeMs)],
      );
    const files = writes.filter((w) => w.kind === 'write');
    const written = files.length > 0 ? await this.#writeFiles(files) : [];
    let next = 0;
    return writes.map((w) => (w.kind === 'touch' ? { added: 0, removed: 0, kept: 0 } : written[next++]!));
  }

  async #removeNow(fileIds: readonly number[]): Promise<void> {
    await this.#removeElements(fileIds.flatMap((id) => (this.#elements.get(id) ?? []).map((e) => e.id)));
    await this.#client.query(`DELETE FROM ${this.#s}.occurrences WHERE repo_id = $1 AND file_id = ANY($2::bigint[])`, [
      this.#id(),
      [...fileIds],
    ]);
    await this.#client.query(`DELETE FROM ${this.#s}.files WHERE repo_id = $1 AND id = ANY($2::bigint[])`, [
      this.#id(),
      [...fileIds],
    ]);
    const gone = new Set(fileIds);
    for (const [path, row] of this.#files) if (gone.has(row.id)) this.#files.delete(path);
    for (const id of fileIds) this.#elements.delete(id);
  }

  async #load(): Promise<void> {
    // A repository indexed for the first time holds nothing yet.
    if (this.#repoId === undefined) return;
    ({ files: this.#files, elements: this.#elements } = await readRepository(this.#client, this.#s, this.#id()));
  }

  /** Forgets every file and element of the repository (a rebuild). */
  async #clear(): Promise<void> {
    await deleteRepositoryRows(this.#client, this.#s, this.#id(), { lexical: this.#lexical, vectors: this.#vectors });
    this.#files = new Map();
    this.#elements = new Map();
  }

  /**
   * Writes files' new states: elements whose document is unchanged keep their row and vector
   * (only their lines move), the rest are replaced, as the embedded store's writeFile does.
   */
  async #writeFiles(writes: readonly Extract<FileWrite, { kind: 'write' }>[]): Promise<WrittenFile[]> {
    const s = this.#s;
    const client = this.#client;
    const now = Date.now();
    const fileRows = await upsertFiles(client, s, this.#id(), writes, now);
    const idOf = new Map(fileRows.map((row) => [row.path, row.id]));

    const added: { fileId: number; write: (typeof writes)[number]; plan: ElementPlan['added'][number] }[] = [];
    const moved: PlacedElement[] = [];
    const removed: number[] = [];
    const results: WrittenFile[] = [];
    const nextElements = new Map<number, PlacedElement[]>();
    for (const w of writes) {
      const fileId = idOf.get(w.update.path)!;
      const plan = planElements(this.#elements.get(fileId) ?? [], w.documents, w.lineBytes);
      moved.push(...plan.moved);
      removed.push(...plan.removed);
      for (const one of plan.added) added.push({ fileId, write: w, plan: one });
      nextElements.set(fileId, plan.kept);
      results.push({ added: plan.added.length, removed: plan.removed.length, kept: plan.kept.length });
    }

    // A second copy of a document the file holds already has no vector of its own in the batch: it
    // shares the kept copy's, read before anything is removed.
    const missing = [
      ...new Set(added.filter((a) => !a.write.vectors.has(a.plan.document.hash)).map((a) => a.plan.document.hash)),
    ];
    const shared = await this.embeddings(missing);

    await this.#removeElements(removed);
    await moveElements(client, s, this.#id(), moved);
    if (added.length > 0) {
      const ids = await newElementIds(client, s, added.length);
      this.#addedElements += added.length;
      const names = added.map((a) => elementNames(a.plan.document));
      await insertElements(client, s, this.#id(), ids, added, names);
      const lexical: LexicalElement[] = added.map((a, i) => ({
        id: ids[i]!,
        fileId: a.fileId,
        texts: elementWords(a.plan.document, names[i]!.name, a.write.update.path),
      }));
      await this.#lexical.add(client, this.#id(), lexical);
      const vectors: ElementVector[] = added.map((a, i) => {
        const vector = a.write.vectors.get(a.plan.document.hash) ?? shared.get(a.plan.document.hash);
        if (!vector)
          throw new StoreError(`no vector for ${a.write.update.path}:${a.plan.document.element.startLine}`, 'CORRUPT');
        return { id: ids[i]!, documentHash: a.plan.document.hash, vector };
      });
      await this.#vectors.put(client, this.#requireEmbedder(), this.#id(), vectors);
      added.forEach((a, i) =>
        nextElements.get(a.fileId)!.push({
          id: ids[i]!,
          hash: a.plan.document.hash,
          startLine: a.plan.document.element.startLine,
          endLine: a.plan.document.element.endLine,
          startByte: a.plan.bytes.start,
          endByte: a.plan.bytes.end,
        }),
      );
    }
    await replaceOccurrences(client, s, this.#id(), writes, idOf);

    for (const w of writes) {
      const fileId = idOf.get(w.update.path)!;
      this.#files.set(w.update.path, { ...w.update, id: fileId, elementCount: w.documents.length });
      this.#elements.set(fileId, nextElements.get(fileId)!);
    }
    return results;
  }

  /** Removes elements with their words and vectors. */
  async #removeElements(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#lexical.remove(this.#client, this.#id(), ids);
    if (this.#embedder) await this.#vectors.remove(this.#client, this.#embedder, this.#id(), ids);
    await this.#client.query(`DELETE FROM ${this.#s}.elements WHERE repo_id = $1 AND id = ANY($2::bigint[])`, [
      this.#id(),
      [...ids],
    ]);
  }

  #requireEmbedder(): string {
    // A program's own mistake: the indexer names the embedder before it writes.
    if (!this.#embedder) throw new TypeError('PostgresRun: useEmbedder() must come before writes');
    return this.#embedder;
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
      throw new TypeError('PostgresRun: the repository has no row before the transaction');
    return this.#repoId;
  }

  async #release(error?: Error): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    this.#connectionClient.release(error);
    await this.#lease.release();
  }
}
