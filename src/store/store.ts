/**
 * The store seam: what the rest of the library asks of wherever an index is kept. A Store is
 * opened for searches (reads.ts), runs an indexing run (a StoreRun: it claims the embedder,
 * writes batches of files as writes.ts describes them, then commits or rolls back), says what
 * it holds (status), and drops a repository. Two implement it, side by side: the embedded store
 * (embedded/: SQLite, FTS5 and a FAISS file in a directory) and the shared one (postgres/:
 * PostgreSQL with pgvector). Which one a choice names is asked once, of the registry of store
 * kinds (locations.ts), when open.ts opens it; what differs between them after that is a
 * capability of the Store (`capabilities`, `startsCold`), so nothing outside src/store/ asks
 * which store it has. The records they read and write are in rows.ts.
 *
 * A Store is a handle: it opens nothing until asked, and each call opens what it needs and
 * closes it again (a search's store stays open until closed).
 */
import type { AnalysisCache } from '../analysis/llm/cache.js';
import type { StoreError } from './errors.js';
import type { OpenStoreOptions, StoreChoice } from './open-options.js';
import type { SearchStore } from './reads.js';
import type { EmbedderRecord, FileRow, FileSummary, LastRun, Repository, RepositoryCounts } from './rows.js';
import type { FileWrite, WrittenFile } from './writes.js';

export interface Store {
  /** Where it is, for messages: the index directory, or the database URL without its password. */
  readonly location: string;
  /** What this store can do that another may not: asked instead of which kind of store it is. */
  readonly capabilities: StoreCapabilities;
  /** Whether it holds an index yet (a shared store answers for itself: true). */
  exists(): boolean;
  /**
   * Whether a run would start from nothing, known without opening anything (an embedded index
   * whose directory is not made yet): a first run may then start its analysis threads before it
   * lists its files. A store that cannot tell without connecting says false.
   */
  startsCold(): boolean;
  /** Opens it for searches, until the SearchStore is closed. */
  openSearch(): Promise<SearchStore>;
  /**
   * Begins an indexing run of one repository: one writer per index (embedded) or per
   * repository (shared) at a time, waiting up to `waitMs` for another (else StoreError LOCKED).
   */
  beginRun(claim: WriterClaim): Promise<StoreRun>;
  /** What it holds now, for `--status` and `index_status` (indexing/status.ts compares it with the files on disk). */
  contents(): Promise<StoreContents>;
  /** Its repositories now, oldest first. */
  repositories(): Promise<Repository[]>;
  /** Removes one repository, whole, in one transaction under its writer's lock (StoreError UNKNOWN_REPO when it has none of that name). */
  dropRepository(name: string, options?: { waitMs?: number }): Promise<DroppedRepository>;
  /**
   * Deletes the whole index, where the store owns its files (`capabilities.drop`: the embedded
   * index's directory); a store that does not refuses (StoreError BAD_OPTION).
   */
  drop(options?: { waitMs?: number }): Promise<DroppedIndex>;
  /**
   * A read-only look for a dry run (indexing/dry-run.ts), which writes nothing; undefined when
   * there is no index yet. A store without `capabilities.preview` refuses (StoreError
   * BAD_OPTION, saying what to do instead).
   */
  preview(): IndexPreview | undefined;
  /**
   * Makes this store, not made yet, a copy of the index of its kind at `source` (`capabilities.seedFromCopy`;
   * a store without it refuses, StoreError BAD_OPTION). Returns why it did not, leaving nothing.
   */
  seedFrom(source: string): Promise<SeedResult>;
}

/**
 * What one store can do and another may not. A caller that must go another way without it
 * asks the flag; one that cannot go on without it calls the method, which refuses in the
 * store's own words.
 */
export interface StoreCapabilities {
  /** A first index can start as a copy of another of its kind (indexing/seed.ts: a linked worktree's from its main worktree's). */
  readonly seedFromCopy: boolean;
  /** A dry run can read it (`preview`). */
  readonly preview: boolean;
  /** It can be deleted whole (`drop`): it owns its files. */
  readonly drop: boolean;
}

/** A copy made, or why not. */
export type SeedResult = { copied: true } | { copied: false; why: string };

/**
 * One kind of store, as the registry of locations (locations.ts) knows it: whether a choice
 * names one, and how to open it.
 */
export interface StoreKind {
  /** Its name in messages: 'embedded index', 'PostgreSQL store'. */
  readonly name: string;
  /**
   * How a user names one, for the sentence that refuses a choice no kind claims ('a PostgreSQL
   * URL (postgres://user@host:5432/db)'); undefined for the kind that a missing choice opens.
   */
  readonly namedBy: string | undefined;
  /** Whether `choice` names a store of this kind. */
  claims(choice: StoreChoice): boolean;
  /** The store `choice` (which this kind claims) names: a handle, which opens nothing yet. */
  open(choice: StoreChoice, options: OpenStoreOptions): Promise<Store>;
}

/** What a dry run compares the files with, read-only. */
export interface IndexPreview {
  readonly embedder: EmbedderRecord | undefined;
  /** The id of the repository a run of `root` would write (the one named `repo` when given), when the index holds it. */
  repositoryId(root: string, repo: string | undefined): number | undefined;
  files(rootId: number): Map<string, FileRow>;
  /** The document hashes of a file's elements. */
  elementHashes(fileId: number): string[];
  /** Whether the embedding cache holds a vector for this document. */
  hasEmbedding(embedder: string, documentHash: string): boolean;
  analysisCache(): AnalysisCache;
  close(): void;
}

/** What a run is of, and how long it waits for the repository's writer. */
export interface WriterClaim {
  /** The directory indexed (absolute). */
  root: string;
  /** The repository's name, when one is asked for; else the store finds it by its root, or names it after the directory. */
  repo?: string | undefined;
  /** How long to wait for another writer (0: fail at once). */
  waitMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * The store's side of one indexing run, from its claim to its commit: the one object the
 * indexing run (indexing/index-run.ts) reads and writes the store through. The indexer
 * (indexing/update-index.ts) drives it in this order: the recorded embedder is read,
 * `claimEmbedder`, `startWriting`, the files read and written a batch at a time, then `finish`
 * and `commit`, or `abandon`; `close` always.
 */
export interface StoreRun {
  /** Where the run writes, for events and the summary. */
  readonly location: string;
  /** The embedder the store recorded (undefined: a new store). */
  readonly embedder: EmbedderRecord | undefined;
  /** The names of the store's repositories other than the run's. */
  otherRepositories(): Promise<string[]>;
  /** The error of a rebuild that would change the embedder under other repositories, in the store's own words. */
  rebuildRefused(others: readonly string[], recorded: EmbedderRecord, next: EmbedderRecord): StoreError;
  /**
   * Records the embedder, or checks it is the recorded one (StoreError EMBEDDER_MISMATCH);
   * with `rebuild`, the run's repository starts afresh (and a store of no other repository takes
   * the new embedder). `host` is where its server is, for searches that name none.
   */
  claimEmbedder(embedder: EmbedderRecord, host: string | undefined, rebuild: boolean): Promise<void>;
  /** Makes the run's repository ready to write, once its embedder is claimed: the methods below wait for it. */
  startWriting(): Promise<void>;
  /** The repository's files as the index holds them now, by path. */
  files(): Promise<Map<string, FileRow>>;
  /** The document hashes of a file's elements as the index holds them now (they keep their vectors). */
  elementHashes(fileId: number): readonly string[];
  /** Vectors the store holds already for some document hashes (the others are absent). */
  embeddings(hashes: readonly string[]): ReadonlyMap<string, Float32Array> | Promise<ReadonlyMap<string, Float32Array>>;
  /** Where the analysis model's answers are cached, when the store keeps them. */
  analysisCache(): AnalysisCache | undefined;
  /** Writes a batch of files (writes.ts): all or none of it. */
  write(writes: readonly FileWrite[]): Promise<WrittenFile[]>;
  /** Removes files and their elements; returns how many elements each had. */
  remove(fileIds: readonly number[]): Promise<number[]>;
  /** After the run's files: its vectors made searchable where that is a step of its own (the FAISS file), and the totals. */
  finish(wrote: boolean): Promise<IndexTotals>;
  /** A run that did not finish: what it committed stays (embedded, batch by batch) or nothing does (shared). */
  abandon(wrote: boolean): Promise<void>;
  /** Commits the run with what `--status` shows of it; returns the store's generation. */
  commit(end: { commit: string | undefined; at: number; lastRun: LastRun }): Promise<number>;
  /** Rolls back whatever is not committed and lets the next writer in. */
  close(): Promise<void>;
}

/** The index's figures after a run, for its summary. */
export interface IndexTotals {
  elements: number;
  index: { description: string; vectors: number; written: boolean };
}

/** What a store holds, as a status reports it before looking at the files on disk. */
export interface StoreContents {
  location: string;
  /** A store shared by machines: a repository may be checked out elsewhere (then its files are not compared). */
  shared: boolean;
  repositories: (RepositoryCounts & { lastRun?: LastRun | null })[];
  files: FileSummary[];
  embedder: EmbedderRecord | undefined;
  embedderHost: string | undefined;
  lastRun: LastRun | null;
  generation: number;
  elements: number;
  vectorIndex: { description: string; file: string | null; fileGeneration: number | null };
  sizeBytes: { database: number; vectors: number };
}

/** A repository removed: where from (`directory` for the embedded store, `location` for a shared one), and what it held. */
export type DroppedRepository = { repo: string; root: string; files: number; elements: number } & (
  | { directory: string }
  | { location: string }
);

export interface DroppedIndex {
  directory: string;
  /** The index's own files that were deleted, by name. */
  removed: string[];
  /** Other entries found in the directory, left as they were (then the directory stays too). */
  kept: string[];
  directoryRemoved: boolean;
}
