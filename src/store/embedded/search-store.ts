/**
 * The embedded index as a SearchStore (../reads.ts): one SQLite database read
 * in one transaction, and the FAISS index brought level with it first.
 *
 * One connection holds one snapshot at a time, so searches share them: a
 * search that arrives while a snapshot is open, or waiting to open, joins it
 * (the same commit, read by both), and the next snapshot opens once every
 * search of the last has ended. So concurrent searches overlap: one reads
 * SQLite on the main thread while another's k-NN runs on FAISS's threads,
 * and their k-NNs reach FAISS together (VectorIndex's SearchBatcher: one
 * call for many queries). A snapshot takes new searches for JOIN_WINDOW_MS
 * after it opens, so a steady stream of searches still moves on to newer
 * commits.
 */
import { FaissError } from '../../native/errors.js';
import { damaged, isCorruption } from './database.js';
import { StoreError } from '../errors.js';
import { ftsExpression } from '../../text/fts-expression.js';
import { filterSql } from './filter-sql.js';
import type { EmbedderRecord } from '../rows.js';
import { openIndex } from './open-index.js';
import {
  MAX_SCOPES,
  type FilterConditions,
  type LexicalMatch,
  type OccurrenceReads,
  type ScopeReads,
  type SearchStore,
  type Snapshot,
  type VectorReads,
  type VectorScope,
} from '../reads.js';
import { ReferenceReader } from './reference-reader.js';
import type { Repository } from '../rows.js';
import { SearchReader, type FilterSql } from './search-reader.js';
import type { IndexStore } from './index-store.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from './vector-file.js';

export interface EmbeddedStoreOptions {
  vectorIndex?: VectorIndexOptions | undefined;
  onEvent?: ((event: VectorIndexEvent) => void) | undefined;
}

export class EmbeddedSearchStore implements SearchStore {
  readonly kind = 'embedded';
  readonly location: string;
  readonly #store: IndexStore;
  readonly #options: EmbeddedStoreOptions;
  /** Undefined when the vectors cannot be had: every search is then lexical, and says why (#problem). */
  #vectors: VectorIndex | undefined;
  #problem: string | undefined;
  /**
   * The index's state (generation, recorded FAISS file) when the vectors could not be had: once
   * it moves (an indexer's commit, a checkpoint, a repair) they are tried again.
   */
  #problemAt: string;
  #record: EmbedderRecord;
  #queue: Promise<unknown> = Promise.resolve();
  /** The snapshot searches join now (open, or waiting for the one before to end). */
  #current: SharedSnapshot | undefined;
  readonly #references: EmbeddedOccurrences;
  /** The repositories and the readers of each scope, for one generation's list of repositories. */
  #repositories: { generation: number; list: Repository[]; key: string; partial: boolean } = {
    generation: Number.NaN,
    list: [],
    key: '',
    partial: false,
  };
  #readers = new Map<string, SearchReader>();
  #closed = false;

  private constructor(
    store: IndexStore,
    vectors: VectorIndex | undefined,
    problem: string | undefined,
    record: EmbedderRecord,
    options: EmbeddedStoreOptions,
  ) {
    this.location = store.directory;
    this.#store = store;
    this.#vectors = vectors;
    this.#problem = problem;
    this.#problemAt = vectorsState(store);
    this.#record = record;
    this.#options = options;
    this.#references = new EmbeddedOccurrences(store, () => this.#servedIds());
  }

  /**
   * Opens the index read-only; throws StoreError NOT_FOUND when there is
   * none (or it is empty). Without its vectors (the native addon cannot
   * load, the index records a dimension FAISS cannot take) it still opens,
   * and searches answer from the lexical index.
   */
  static async open(indexDir: string, options: EmbeddedStoreOptions = {}): Promise<EmbeddedSearchStore> {
    const opened = await openIndex(indexDir, {
      ...options.vectorIndex,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      withoutVectors: true,
    });
    const problem = opened.vectors ? undefined : opened.vectorsProblem;
    opened.store.repositories.noteOutside(options.onEvent);
    return new EmbeddedSearchStore(opened.store, opened.vectors, problem, opened.embedder, options);
  }

  /** The FAISS index searches use now, if any. */
  get vectorIndex(): VectorIndex | undefined {
    return this.#vectors;
  }

  read<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError());
    let shared = this.#current;
    if (!shared?.takesJoiners()) shared = this.#current = this.#nextSnapshot();
    return shared.join(work).catch((error: unknown) => {
      throw this.#described(error);
    });
  }

  /**
   * The next snapshot: opened (a read transaction begun, the vectors brought
   * level) once the one before has ended, and ended once every search that
   * joined it has ended.
   */
  #nextSnapshot(): SharedSnapshot {
    const shared = new SharedSnapshot();
    const ran = this.#queue.then(() =>
      this.#store.readSnapshot(async () => {
        try {
          if (this.#closed) throw this.#closedError();
          shared.open(this.#snapshot(await this.#catchUp()));
        } catch (error) {
          shared.fail(error);
        }
        await shared.ended();
        if (this.#current === shared) this.#current = undefined;
      }),
    );
    // Its transaction may not even begin (the store closed while it waited its turn): its searches hear why.
    this.#queue = ran.catch((error: unknown) => {
      shared.fail(this.#closed ? this.#closedError() : error);
      if (this.#current === shared) this.#current = undefined;
    });
    return shared;
  }

  #closedError(): StoreError {
    return new StoreError(`the index at ${this.location} is closed`, 'CLOSED');
  }

  /** A damaged page is found by the query that reads it: say what it means and what to do. */
  #described(error: unknown): unknown {
    return isCorruption(error) ? damaged(this.location, (error as Error).message) : error;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#vectors?.close();
    this.#store.close();
  }

  #snapshot(embedder: EmbedderRecord | undefined): Snapshot {
    const store = this.#store;
    const generation = store.generation;
    const repositories = this.#repositoriesAt(generation);
    const vectors = this.#vectors;
    return {
      generation,
      embedder,
      repositories,
      reads: (roots) => this.#reads(roots, repositories.length),
      vectors: vectors ? vectorReads(vectors, this.#repositories.partial) : { problem: this.#problem ?? 'no vectors' },
      occurrences: this.#references,
    };
  }

  /**
   * The list of repositories served, read again only after an indexer committed; `partial`
   * when the index records others (outside its home: repositories.ts), which every read leaves out.
   */
  #repositoriesAt(generation: number): Repository[] {
    if (this.#repositories.generation === generation) return this.#repositories.list;
    const list = this.#store.repositories.all();
    const partial = this.#store.repositories.ids().length > list.length;
    const key = list.map((r) => `${r.id}:${r.root}`).join('\n');
    // A reader holds its repositories' statements: a list that changed (a drop, a new repository) needs new ones.
    if (key !== this.#repositories.key) this.#readers = new Map();
    this.#repositories = { generation, list, key, partial };
    return list;
  }

  /** The served repositories' ids when the index records others, else undefined (every one is served). */
  #servedIds(): number[] | undefined {
    const { list, partial } = this.#repositories;
    return partial ? list.map((repository) => repository.id) : undefined;
  }

  #reads(roots: readonly number[], repositories: number): ScopeReads {
    const key = roots.join(',');
    let reader = this.#readers.get(key);
    if (!reader) {
      if (this.#readers.size >= MAX_SCOPES) this.#readers = new Map();
      this.#readers.set(key, (reader = new SearchReader(this.#store, roots)));
    }
    // Every repository: the vectors' count when there are vectors (the elements a k-NN searches).
    const all = !this.#repositories.partial && roots.length >= repositories;
    return new EmbeddedScopeReads(reader, all ? () => this.#vectors?.ntotal ?? this.#store.elementCount : undefined);
  }

  /**
   * Picks up what an indexer committed since the last search (or a switch of
   * embedder). Vectors that cannot be had (FAISS fails or cannot take the
   * recorded dimension, the vectors kept in a lost file alone) leave this and
   * later searches lexical, saying why, until an indexer commits again (a
   * run that repaired them, or a switch of embedder). Gives the embedder the
   * index records now.
   */
  async #catchUp(): Promise<EmbedderRecord | undefined> {
    const record = this.#store.embedder;
    if (!record) return record;
    const switched = record.id !== this.#record.id || record.dimension !== this.#record.dimension;
    if (!this.#vectors && !switched && vectorsState(this.#store) === this.#problemAt) return record;
    const onEvent = this.#options.onEvent ?? (() => {});
    if (switched) this.#record = record;
    try {
      const current = this.#vectors;
      if (switched || !current) {
        const fresh = await VectorIndex.open(this.#store, record, this.#options.vectorIndex, onEvent);
        current?.close();
        this.#vectors = fresh;
        this.#problem = undefined;
      } else this.#vectors = await current.refresh(this.#store, record, onEvent);
    } catch (error) {
      if (!(error instanceof FaissError)) throw error;
      this.#vectors?.close();
      this.#vectors = undefined;
      this.#problem = error.message.split('\n')[0]!.replace(/^ocvector: /, '');
      this.#problemAt = vectorsState(this.#store);
    }
    return record;
  }
}

/** What a reader's vectors depend on: the generation, and the FAISS file the database records (a checkpoint keeps the generation). */
function vectorsState(store: IndexStore): string {
  return `${store.generation} ${store.meta.vectorsFile}`;
}

/** How long a snapshot takes new searches after it opened: a commit waits at most about this, and a search, to be seen. */
const JOIN_WINDOW_MS = 100;

/** A snapshot several searches read at once: joined before or after it opens, ended when the last of them ends. */
class SharedSnapshot {
  #snapshot: Promise<Snapshot>;
  #opened!: (snapshot: Snapshot) => void;
  #failed!: (error: unknown) => void;
  #openedAt: number | undefined;
  #joined = 0;
  #closing = false;
  #allLeft: (() => void) | undefined;

  constructor() {
    this.#snapshot = new Promise((resolve, reject) => {
      this.#opened = resolve;
      this.#failed = reject;
    });
    // A snapshot that fails to open fails its joiners, who see the error; nobody else waits on it.
    this.#snapshot.catch(() => {});
  }

  open(snapshot: Snapshot): void {
    this.#openedAt = performance.now();
    this.#opened(snapshot);
  }

  fail(error: unknown): void {
    this.#failed(error);
  }

  /** Whether a search arriving now may read it: not once it is ending, nor long after it opened. */
  takesJoiners(): boolean {
    return !this.#closing && (this.#openedAt === undefined || performance.now() - this.#openedAt < JOIN_WINDOW_MS);
  }

  async join<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    this.#joined++;
    try {
      return await work(await this.#snapshot);
    } finally {
      if (--this.#joined === 0) {
        this.#closing = true;
        this.#allLeft?.();
      }
    }
  }

  /** Resolves once no search is reading it any more (it takes none after that). */
  ended(): Promise<void> {
    if (this.#joined === 0) {
      this.#closing = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#allLeft = resolve;
    });
  }
}

/** The FAISS index as a search's k-NN: kept to a scope's ids exactly, or (an older addon) fetched deeper and filtered. */
/** The vectors' reads; `partial`: the index records repositories it does not serve, so every k-NN is kept to a scope. */
function vectorReads(vectors: VectorIndex, partial: boolean): VectorReads {
  return {
    count: vectors.ntotal,
    async nearest(query: Float32Array, depth: number, given: VectorScope) {
      const scope = partial ? { ...given, scoped: true } : given;
      const ntotal = vectors.ntotal;
      let restricted: BigInt64Array | undefined;
      let inScope: ReadonlySet<number> | undefined;
      let wanted = Math.min(ntotal, depth);
      let kept = depth;
      if (scope.scoped && vectors.restrictable) {
        restricted = await scope.elementIds();
        wanted = Math.min(restricted.length, depth);
      } else if (scope.scoped) {
        inScope = await scope.elementSet();
        wanted = Math.min(ntotal, scope.overfetch * depth);
        kept = Math.min(inScope.size, depth);
      }
      if (wanted === 0) return [];
      // On the GPU copy when the options placed one there (vectorIndex.device), with the index's nprobe.
      const { labels, distances } = await vectors.search(query, wanted, restricted);
      const out: { id: number; score: number }[] = [];
      for (let i = 0; i < labels.length && out.length < kept; i++) {
        const id = Number(labels[i]);
        if (id >= 0 && (!inScope || inScope.has(id))) out.push({ id, score: distances[i]! });
      }
      return out;
    },
  };
}

/** A SearchReader's reads (synchronous: SQLite answers at once) behind the asynchronous seam. */
class EmbeddedScopeReads implements ScopeReads {
  readonly #reader: SearchReader;
  readonly #indexElements: (() => number) | undefined;

  /** `indexElements`: the count of every element, when the reader covers every repository. */
  constructor(reader: SearchReader, indexElements?: () => number) {
    this.#reader = reader;
    this.#indexElements = indexElements;
  }

  async elementHits(
    match: LexicalMatch | undefined,
    codeMatch: LexicalMatch | undefined,
    filters: FilterConditions,
    limit: number,
    codeWeight?: number,
  ) {
    return this.#reader.elementHits(fts(match), fts(codeMatch), sqlOf(filters), limit, codeWeight);
  }

  async pathElements(paths: readonly string[], filters: FilterConditions, limit: number) {
    return this.#reader.pathElements(paths, sqlOf(filters), limit);
  }

  async definitions(names: readonly string[], filters: FilterConditions, limit: number) {
    return this.#reader.definitions(names, sqlOf(filters), limit);
  }

  async namedFiles(names: readonly string[], filters: FilterConditions, perFile: number) {
    return this.#reader.namedFiles(names, sqlOf(filters), perFile);
  }

  async rows(ids: readonly number[]) {
    return this.#reader.rows(ids);
  }

  async documentFrequencies(terms: readonly string[]) {
    const out = new Map<string, number>();
    for (const term of terms) {
      const n = this.#reader.documentFrequency(term);
      if (n !== undefined) out.set(term, n);
    }
    return out;
  }

  async matchesMoreThan(match: LexicalMatch, count: number, inCode = false) {
    return this.#reader.matchesMoreThan(fts(match)!, count, inCode);
  }

  async matchCount(match: LexicalMatch) {
    return this.#reader.matchCount(fts(match)!);
  }

  async fileTermCounts(terms: readonly LexicalMatch[], generation: number) {
    return this.#reader.fileTermCounts(
      terms.map((term) => fts(term)!),
      generation,
    );
  }

  async files() {
    return this.#reader.files();
  }

  async elementCount() {
    return this.#indexElements ? this.#indexElements() : this.#reader.elementCount();
  }

  async elementIds() {
    return this.#reader.elementIds();
  }
}

/** The occurrences table's reads (reference-reader.ts) behind the seam. */
class EmbeddedOccurrences implements OccurrenceReads {
  readonly #reader: ReferenceReader;
  /** The repositories served, when not every one is: what a read of all repositories is kept to. */
  readonly #served: () => readonly number[] | undefined;

  constructor(store: IndexStore, served: () => readonly number[] | undefined) {
    this.#reader = new ReferenceReader(store);
    this.#served = served;
  }

  async files(word: string, given: readonly number[] | undefined) {
    const files = this.#reader.files(word);
    const roots = given ?? this.#served();
    if (!roots) return files;
    const wanted = new Set(roots);
    return files.filter((file) => wanted.has(file.rootId));
  }

  async around(file: { fileId: number }, lines: readonly number[]) {
    return lines.map((line) => this.#reader.around(file.fileId, line));
  }

  async holding(file: { fileId: number }, lines: readonly number[]) {
    return lines.map((line) => this.#reader.holding(file.fileId, line));
  }
}

/** A match as an FTS5 expression: quoted terms joined by OR, or by AND when all must match. */
function fts(match: LexicalMatch | undefined): string | undefined {
  if (!match) return undefined;
  return ftsExpression(match.terms, match.all);
}

/** A search's filters, compiled once for the several reads it makes with them. */
const compiledFilters = new WeakMap<FilterConditions, FilterSql>();

/** Filters as SQL over `e` and `f`, with whether any is set. */
function sqlOf(filters: FilterConditions): FilterSql {
  let sql = compiledFilters.get(filters);
  if (!sql) {
    const compiled = filterSql(filters);
    compiledFilters.set(filters, (sql = { ...compiled, active: compiled.sql !== '1' }));
  }
  return sql;
}
