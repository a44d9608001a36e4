/**
 * IndexStore: the SQLite side of an index, the source of truth. Files,
 * elements (one per vector; vector_id is the FAISS id), the embedding and
 * analysis caches, tombstones of removed vectors, FTS5, and metadata.
 * All calls are synchronous (better-sqlite3): each is a short query.
 */
import type Database from 'better-sqlite3';
import type { AnalysisCache } from '../../analysis/llm/cache.js';
import { AnalysisCacheRows } from './analysis-cache-rows.js';
import type { ElementDocument } from '../../vector/document.js';
import { elementNames, elementWords } from '../element-texts.js';
import { planElements } from '../element-plan.js';
import {
  damaged,
  isCorruption,
  openDatabase,
  recordLastWriter,
  StoreError,
  type OpenDatabaseOptions,
} from './database.js';
import { IndexMeta } from './meta.js';
import type { EmbedderRecord } from '../rows.js';
import {
  UNTRUSTED_MTIME,
  type ElementRow,
  type ElementSummary,
  type FileRow,
  type FileStatus,
  type FileSummary,
  type FileUpdate,
  type LineBytes,
} from '../rows.js';
import { compactDatabase } from './compact.js';
import { prepared } from './sqlite.js';
import { LexicalRows } from './lexical-tables.js';
import { OccurrenceRows } from './occurrence-rows.js';
import { Repositories } from './repositories.js';
import { homeOf, type Relocation } from './relocation.js';
import type { Repository } from '../rows.js';
import { defaultRepositoryName } from '../repository-name.js';
import { VectorRows, type VectorPage, type VectorRowsRead } from './vector-rows.js';

export class IndexStore {
  readonly #db: Database.Database;
  readonly directory: string;
  /** The metadata: generation, embedder, index type, last run. */
  readonly meta: IndexMeta;
  /** Opened for reading only: nothing is written, not even repairs. */
  readonly readonly: boolean;
  readonly #s;
  readonly #vectors: VectorRows;
  readonly #occurrences: OccurrenceRows;
  readonly #lexical: LexicalRows;
  /** The repositories (roots) the index covers. */
  readonly repositories: Repositories;
  /** The analysis model's cached answers, kept through a rolled-back span. */
  readonly #analysis: AnalysisCacheRows;

  private constructor(directory: string, db: Database.Database, readonly: boolean) {
    this.directory = directory;
    this.#db = db;
    this.readonly = readonly;
    this.meta = new IndexMeta(db);
    this.#vectors = new VectorRows(db);
    this.#occurrences = new OccurrenceRows(db);
    this.#lexical = new LexicalRows(db);
    this.#analysis = new AnalysisCacheRows(db);
    this.repositories = new Repositories(db, { directory, home: this.meta.home });
    this.#s = {
      rootOfFile: prepared<[number], { rootId: number }>(db, 'SELECT root_id AS rootId FROM files WHERE id = ?'),
      placeOfElement: prepared<[number], { rootId: number; fileId: number }>(
        db,
        'SELECT f.root_id AS rootId, f.id AS fileId FROM elements e JOIN files f ON f.id = e.file_id WHERE e.vector_id = ?',
      ),
      files: prepared<[number], FileRow>(
        db,
        'SELECT id, path, language, size, mtime_ms AS mtimeMs, hash, status, error, element_count AS elementCount FROM files WHERE root_id = ?',
      ),
      fileByPath: prepared<[number, string], FileRow>(
        db,
        'SELECT id, path, language, size, mtime_ms AS mtimeMs, hash, status, error, element_count AS elementCount FROM files WHERE root_id = ? AND path = ?',
      ),
      upsertFile: prepared<
        [number, string, string | null, number, number, string | null, FileStatus, string | null, number],
        { id: number }
      >(
        db,
        `INSERT INTO files (root_id, path, language, size, mtime_ms, hash, status, error, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (root_id, path) DO UPDATE SET language = excluded.language, size = excluded.size, mtime_ms = excluded.mtime_ms,
           hash = excluded.hash, status = excluded.status, error = excluded.error, indexed_at = excluded.indexed_at
         RETURNING id`,
      ),
      touchFile: prepared(db, 'UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?'),
      setElementCount: prepared(db, 'UPDATE files SET element_count = ? WHERE id = ?'),
      deleteFile: prepared(db, 'DELETE FROM files WHERE id = ?'),
      elementsOfFile: prepared<[number], ElementRow>(
        db,
        `SELECT vector_id AS vectorId, file_id AS fileId, generation, element_type AS type, element_name AS name, access,
           start_line AS startLine, end_line AS endLine, start_byte AS startByte, end_byte AS endByte,
           signature, description, document_hash AS documentHash
         FROM elements WHERE file_id = ?`,
      ),
      insertElement: prepared<
        [number, number, string, string, string, string, number, number, number, number, string, string, string]
      >(
        db,
        `INSERT INTO elements (file_id, generation, element_type, element_name, short_name, access, start_line, end_line, start_byte, end_byte, signature, description, document_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      moveElement: prepared(
        db,
        'UPDATE elements SET start_line = ?, end_line = ?, start_byte = ?, end_byte = ? WHERE vector_id = ?',
      ),
      deleteElement: prepared(db, 'DELETE FROM elements WHERE vector_id = ?'),
      tombstone: prepared(db, 'INSERT OR REPLACE INTO removed_vectors (vector_id, generation) VALUES (?, ?)'),
      elementCount: prepared<[], { n: number }>(db, 'SELECT count(*) AS n FROM elements'),
    };
  }

  /**
   * The connection, for the embedded store's readers (search-reader.ts,
   * reference-reader.ts own their SQL) and white-box tests. Nothing outside
   * src/store reaches this class (test/store/import-boundary.test.ts).
   */
  get database(): Database.Database {
    return this.#db;
  }

  static open(directory: string, options: OpenDatabaseOptions = {}): IndexStore {
    return new IndexStore(directory, openDatabase(directory, options), options.readonly ?? false);
  }

  close(): void {
    if (!this.#db.open) return;
    this.#db.close();
    if (!this.readonly) recordLastWriter(this.directory);
  }

  /** Runs work in one write transaction (taken at once: IMMEDIATE). */
  transaction<T>(work: () => T): T {
    return this.#db.transaction(work).immediate();
  }

  /**
   * Runs work, which may wait, inside one read transaction: every read it
   * makes sees the same commit, however an indexer writes meanwhile.
   */
  async readSnapshot<T>(work: () => Promise<T>): Promise<T> {
    this.#db.exec('BEGIN');
    try {
      return await work();
    } catch (error) {
      // A damaged page is found by the query that reads it: say what it means and what to do.
      throw isCorruption(error) ? damaged(this.directory, (error as Error).message) : error;
    } finally {
      this.#db.exec('COMMIT');
    }
  }

  /**
   * Opens a transaction that spans many calls (and awaits), until
   * {@link commitSpan} or {@link rollbackSpan}; transactions inside it
   * become savepoints. A rebuild runs in one, so that readers keep seeing
   * the previous index until the new one is complete.
   */
  beginSpan(): void {
    this.#db.exec('BEGIN IMMEDIATE');
    this.#analysis.spanSettled();
  }

  commitSpan(): void {
    if (this.#db.inTransaction) this.#db.exec('COMMIT');
    this.#analysis.spanSettled();
  }

  /**
   * Undoes the span, but for the model answers cached in it: an interrupted rebuild asks the model
   * again only about what it had not answered (minutes a call on a small machine).
   */
  rollbackSpan(): void {
    if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
    if (!this.readonly) this.#analysis.restoreAfterRollback();
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  // -- metadata ------------------------------------------------------------

  /** Bumped once per run that changes something; stamps rows and the FAISS file. */
  get generation(): number {
    return this.meta.generation;
  }

  get embedder(): EmbedderRecord | undefined {
    return this.meta.embedder;
  }

  /**
   * Records the embedder of a new index, or checks that it is the one the
   * index was built with: vectors of two embedders are never mixed.
   */
  claimEmbedder(embedder: EmbedderRecord): void {
    const recorded = this.embedder;
    if (!recorded) {
      this.transaction(() => {
        this.meta.embedder = embedder;
      });
      return;
    }
    if (recorded.id !== embedder.id || recorded.dimension !== embedder.dimension) {
      throw new StoreError(
        `this index was built with the embedder ${recorded.id} (${recorded.dimension} dimensions), not ${embedder.id} (${embedder.dimension}); ` +
          `use ${recorded.id} again, or rebuild the index with the new one (oc-vector-index --rebuild, or { rebuild: true })`,
        'EMBEDDER_MISMATCH',
      );
    }
  }

  /** Forgets every root, file and element (a rebuild); the caches are kept. */
  reset(embedder: EmbedderRecord): void {
    this.transaction(() => {
      this.#db.exec('DELETE FROM elements; DELETE FROM files; DELETE FROM removed_vectors;');
      this.repositories.removeAll();
      this.meta.embedder = embedder;
      this.meta.generation = this.generation + 1;
      this.meta.rebuiltAtGeneration = this.generation;
    });
  }

  // -- files ---------------------------------------------------------------

  /**
   * Writes the roots' paths where the index's move put them (relocation.ts), and where it
   * lies now; returns the move, undefined when it had none. A writer's first step.
   */
  settleLocation(): Relocation | undefined {
    return this.transaction(() => {
      const relocation = this.repositories.settleRelocation();
      const home = homeOf(this.directory);
      if (home !== undefined && this.meta.home !== home) this.meta.home = home;
      return relocation;
    });
  }

  /** The id of the repository indexed from `root` (named after its directory when new: a write). */
  rootId(root: string): number {
    return this.repositories.ensure(root, undefined, defaultRepositoryName(root)).id;
  }

  /** The roots this index covers, id -> absolute path, oldest first. */
  roots(): Map<number, string> {
    return new Map(this.repositories.all().map((repository) => [repository.id, repository.root]));
  }

  /**
   * Removes a repository: its files, elements and words, and its lexical tables (whole: no
   * row is deleted from them first), in one transaction; its vectors are tombstoned for the
   * FAISS file (as a deleted file's). Returns how many files and elements went.
   */
  dropRepository(repository: Repository, generation: number): { files: number; elements: number } {
    return this.transaction(() => {
      let elements = 0;
      const files = [...this.files(repository.id).values()];
      for (const file of files) elements += this.#deleteFile(file.id, generation, false).length;
      this.repositories.remove(repository.id);
      return { files: files.length, elements };
    });
  }

  files(rootId: number): Map<string, FileRow> {
    return new Map(this.#s.files.all(rootId).map((row) => [row.path, row]));
  }

  file(rootId: number, path: string): FileRow | undefined {
    return this.#s.fileByPath.get(rootId, path);
  }

  touchFile(fileId: number, size: number, mtimeMs: number): void {
    this.#s.touchFile.run(size, mtimeMs, fileId);
  }

  /** Deletes a file and its elements; returns the vector ids to remove from FAISS. */
  deleteFile(fileId: number, generation: number): number[] {
    return this.#deleteFile(fileId, generation, true);
  }

  /** Deletes a file, its elements, and (`lexical`) their lexical rows; its lexical texts go with its row. */
  #deleteFile(fileId: number, generation: number, lexical: boolean): number[] {
    const removed = this.#s.elementsOfFile.all(fileId).map((row) => row.vectorId);
    const rootId = this.#s.rootOfFile.get(fileId)?.rootId;
    if (lexical && rootId !== undefined && removed.length > 0) this.#lexical.removeRows(rootId, fileId, removed);
    for (const id of removed) this.#removeElement(id, generation);
    this.#s.deleteFile.run(fileId);
    return removed;
  }

  /**
   * Writes a file's new state and elements. Elements whose document is
   * unchanged keep their row and vector (only their lines move); the rest
   * are replaced. Returns what FAISS must do.
   */
  writeFile(
    rootId: number,
    update: FileUpdate,
    documents: readonly ElementDocument[],
    generation: number,
    extras: {
      /** Where the file's lines lie in bytes: elements record theirs. */
      lineBytes?: LineBytes | undefined;
      /** Its words and their lines (text/occurrences.ts); a file written without them keeps none. */
      occurrences?: ReadonlyMap<string, string> | undefined;
    } = {},
  ): { fileId: number; added: { vectorId: number; document: ElementDocument }[]; removed: number[]; kept: number } {
    const fileId = this.#s.upsertFile.get(
      rootId,
      update.path,
      update.language,
      update.size,
      update.mtimeMs,
      update.hash,
      update.status,
      update.error,
      Date.now(),
    )!.id;
    const old = this.#s.elementsOfFile.all(fileId).map((row) => ({
      id: row.vectorId,
      hash: row.documentHash,
      startLine: row.startLine,
      endLine: row.endLine,
      startByte: row.startByte,
      endByte: row.endByte,
    }));
    const plan = planElements(old, documents, extras.lineBytes);
    for (const e of plan.moved) this.#s.moveElement.run(e.startLine, e.endLine, e.startByte, e.endByte, e.id);
    const added: { vectorId: number; document: ElementDocument }[] = [];
    for (const { document, bytes } of plan.added) {
      const e = document.element;
      const { name, shortName } = elementNames(document);
      const vectorId = Number(
        this.#s.insertElement.run(
          fileId,
          generation,
          e.type,
          name,
          shortName,
          e.access,
          e.startLine,
          e.endLine,
          bytes.start,
          bytes.end,
          e.signature,
          e.description,
          document.hash,
        ).lastInsertRowid,
      );
      added.push({ vectorId, document });
    }
    const words = (document: ElementDocument) => elementWords(document, elementNames(document).name, update.path);
    this.#lexical.writeFile(rootId, fileId, {
      added: added.map(({ vectorId, document }) => ({ id: vectorId, row: words(document) })),
      removed: plan.removed,
      kept: plan.kept.map(({ id, document }) => ({ id, row: () => words(document) })),
    });
    for (const id of plan.removed) this.#removeElement(id, generation);
    this.#s.setElementCount.run(documents.length, fileId);
    this.#occurrences.replace(fileId, extras.occurrences ?? new Map());
    return { fileId, added, removed: plan.removed, kept: plan.kept.length };
  }

  /** Deletes an element's row (its lexical row is the caller's) and tombstones its vector. */
  #removeElement(vectorId: number, generation: number): void {
    this.#s.deleteElement.run(vectorId);
    this.#s.tombstone.run(vectorId, generation);
  }

  /** Marks the files of these elements to be read again by the next run (their rows stay). */
  readFilesAgain(vectorIds: readonly number[]): void {
    const markFile = prepared(
      this.#db,
      'UPDATE files SET hash = NULL, mtime_ms = ? WHERE id = (SELECT file_id FROM elements WHERE vector_id = ?)',
    );
    for (const id of vectorIds) markFile.run(UNTRUSTED_MTIME, id);
  }

  /** Drops elements (their rows, their lexical rows) and marks their files to be read again by the next run. */
  forgetElements(vectorIds: readonly number[]): void {
    this.readFilesAgain(vectorIds);
    const placed = vectorIds.flatMap((id) => {
      const place = this.#s.placeOfElement.get(id);
      return place === undefined ? [] : [{ id, ...place }];
    });
    this.#lexical.forget(placed);
    for (const { id } of placed) this.#s.deleteElement.run(id);
  }

  elementsOfFile(fileId: number): ElementRow[] {
    return this.#s.elementsOfFile.all(fileId);
  }

  get elementCount(): number {
    return this.#s.elementCount.get()!.n;
  }

  /** Every file of every root, by path. */
  fileSummaries(): FileSummary[] {
    return prepared<[], FileSummary>(
      this.#db,
      'SELECT path, language, size, mtime_ms AS mtimeMs, hash, status, error, element_count AS elements, root_id AS rootId FROM files ORDER BY path',
    ).all();
  }

  /** Every element's vector id and document hash (which names its vector in the embedding cache), by id. */
  elementVectors(): { id: number; hash: string }[] {
    return prepared<[], { id: number; hash: string }>(
      this.#db,
      'SELECT vector_id AS id, document_hash AS hash FROM elements ORDER BY vector_id',
    ).all();
  }

  /** Every element's type, name and description, in vector id order. */
  elementSummaries(): ElementSummary[] {
    return prepared<[], ElementSummary>(
      this.#db,
      'SELECT element_type AS type, element_name AS name, description FROM elements ORDER BY vector_id',
    ).all();
  }

  // -- vectors (vector-rows.ts) ---------------------------------------------

  getEmbedding(embedder: string, documentHash: string): Float32Array | undefined {
    return this.#vectors.getEmbedding(embedder, documentHash);
  }

  putEmbedding(embedder: string, documentHash: string, vector: Float32Array): void {
    this.#vectors.putEmbedding(embedder, documentHash, vector);
  }

  /** Vectors of live elements in vector_id order, optionally only those added after a generation, a page at a time; rows without a cached vector in `missing`. */
  vectors(embedder: EmbedderRecord, afterGeneration = -1, page?: VectorPage): VectorRowsRead {
    return this.#vectors.vectors(embedder, afterGeneration, page);
  }

  /** How many live elements have a cached vector of this embedder. */
  vectorCount(embedder: EmbedderRecord): number {
    return this.#vectors.vectorCount(embedder);
  }

  /** Live elements without a vector of this embedder in the database (kept in the FAISS file alone). */
  withoutVector(embedder: string): { id: number; hash: string; rootId: number }[] {
    return this.#vectors.withoutVector(embedder);
  }

  /** Vector ids removed after a generation (replayed onto an older FAISS file). */
  removedAfter(generation: number): BigInt64Array {
    return this.#vectors.removedAfter(generation);
  }

  /** Vectors added or removed after a generation: what replaying onto an older FAISS file costs. */
  changesAfter(generation: number): number {
    return this.#vectors.changesAfter(generation);
  }

  /** Tombstones at or before a generation are in the FAISS file already. */
  pruneRemoved(generation: number): void {
    this.#vectors.pruneRemoved(generation);
  }

  /** Drops cached vectors no element uses, once they outnumber the live ones. */
  pruneEmbeddings(): number {
    // Elements, not their distinct hashes: an upper bound that the primary key counts quickly.
    // Counting distinct hashes read every element's hash, which cost every run (docs/performance.md, Indexing).
    return this.#vectors.pruneEmbeddings(this.elementCount);
  }

  /** Drops every cached vector of an embedder, once the FAISS file keeps them (EmbedderBackend.recomputesCheaply). */
  dropEmbeddings(embedder: string): number {
    return this.#vectors.dropEmbeddings(embedder);
  }

  /** Gives the pages of deleted rows back to the file system when it is worth it (compact.ts). */
  compact(): boolean {
    return compactDatabase(this.#db);
  }

  analysisCache(): AnalysisCache {
    return this.#analysis.cache();
  }
}
