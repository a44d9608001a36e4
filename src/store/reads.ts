/**
 * The seam between search and the stores: what one search reads, whatever
 * holds the index. Two stores implement it, the embedded one (SQLite + FTS5
 * + a FAISS file: embedded/search-store.ts) and the shared one (PostgreSQL +
 * pgvector: postgres/search-store.ts), and one ranking sits above both
 * (search/). Every read is asynchronous, since a database server answers
 * over a connection; the embedded store answers at once.
 *
 * A search reads through one Snapshot: every read it makes sees the same
 * commit of the index, however writers go on meanwhile.
 */
import type { EnclosingElement } from './enclosing.js';
import type { IdScore } from './id-scores.js';
import type { ElementRecord, EmbedderRecord, FileTermCounts, OccurrenceFile, Repository } from './rows.js';

/**
 * At most this many scopes (sets of repositories a search names) are kept, each with its
 * caches, by the search and by a store's readers alike; past it they are made afresh.
 */
export const MAX_SCOPES = 32;

/** What a search keeps, in the store's terms. Every part present must hold. */
export interface FilterConditions {
  /** Files under this directory, or the file of this path. */
  under?: string;
  /** Files whose path starts with this text (a glob's literal head). */
  pathStartsWith?: string;
  /** Files of these languages. */
  languages?: readonly string[];
  /** Elements of these types. */
  types?: readonly string[];
}

export type { EnclosingElement } from './enclosing.js';
export type { IdScore } from './id-scores.js';

/**
 * Terms as FTS5 reads them quoted (search/query.ts's ftsExpression): any of
 * them (OR), or with `all` every one (AND). A term is tokenized as FTS5
 * tokenizes it, so one term may be a phrase of several tokens.
 */
export interface LexicalMatch {
  terms: readonly string[];
  all?: boolean | undefined;
}

/**
 * The reads of one search over some repositories of the index (its scope).
 * BM25 and every count are the scope's own: scoped to one repository, a
 * search ranks as that repository indexed alone.
 */
export interface ScopeReads {
  /**
   * BM25 over elements, best first, filtered: over their names, signatures,
   * descriptions and paths, plus `codeWeight` (default 0.3) times BM25 over
   * their code. Each repository ranks by its own statistics; the best
   * `limit` of all are kept.
   */
  elementHits(
    match: LexicalMatch | undefined,
    codeMatch: LexicalMatch | undefined,
    filters: FilterConditions,
    limit: number,
    codeWeight?: number,
  ): Promise<IdScore[]>;
  /** The elements of the files whose path contains one of `paths` (lower case), outermost first, in file order. */
  pathElements(paths: readonly string[], filters: FilterConditions, limit: number): Promise<number[]>;
  /** Elements named one of `names` (the last segment of their qualified name, any case) that are not pieces of text. */
  definitions(names: readonly string[], filters: FilterConditions, limit: number): Promise<number[]>;
  /** Files named after one of `names`, each with its first `perFile` elements in file order. */
  namedFiles(
    names: readonly string[],
    filters: FilterConditions,
    perFile: number,
  ): Promise<{ fileId: number; ids: number[] }[]>;
  /** The rows of these elements, by id (an id gone since is absent). */
  rows(ids: readonly number[]): Promise<Map<number, ElementRecord>>;
  /** In how many elements each (stemmed) term occurs in names, signatures, descriptions and paths (absent: none). */
  documentFrequencies(terms: readonly string[]): Promise<Map<string, number>>;
  /** Whether more than `count` elements match, in their names and descriptions or in their code. */
  matchesMoreThan(match: LexicalMatch, count: number, inCode?: boolean): Promise<boolean>;
  /** How many elements match in their names and descriptions. */
  matchCount(match: LexicalMatch): Promise<number>;
  /** For BM25 over whole files: per term, how many elements of each file hold it. */
  fileTermCounts(terms: readonly LexicalMatch[], generation: number): Promise<FileTermCounts>;
  /** The indexed files of these repositories (to match the paths a text names against). */
  files(): Promise<IndexedFile[]>;
  /** Elements in these repositories. */
  elementCount(): Promise<number>;
  /** Their element ids, ascending (what a scoped k-NN may return). */
  elementIds(): Promise<number[]>;
}

/** A file of the index, as a search names it. */
export interface IndexedFile {
  fileId: number;
  rootId: number;
  /** Relative to its repository's root, with forward slashes. */
  path: string;
}

/** The k-NN half of a search. */
export interface VectorReads {
  /** Vectors searchable now: none makes a vector search answer nothing. */
  readonly count: number;
  /**
   * The `depth` nearest elements to a query (inner product, higher is
   * better), within the scope's repositories when it is some of them only.
   */
  nearest(query: Float32Array, depth: number, scope: VectorScope): Promise<{ id: number; score: number }[]>;
}

/** What a k-NN is kept to. */
export interface VectorScope {
  roots: readonly number[];
  /** Some of the index's repositories, not all. */
  scoped: boolean;
  /** The scope's element ids, ascending (cached by the caller per generation). */
  elementIds(): Promise<BigInt64Array>;
  /** The same, as a set. */
  elementSet(): Promise<ReadonlySet<number>>;
  /** How much deeper to fetch where a store cannot keep a k-NN to the scope (then it keeps the scope's hits). */
  overfetch: number;
}

/** The reads "where is X used?" makes (search/references.ts). */
export interface OccurrenceReads {
  /** The files `word` (exact case) occurs in, in these repositories (all when undefined), by path. */
  files(word: string, roots: readonly number[] | undefined): Promise<OccurrenceFile[]>;
  /** The innermost element around each of these lines of a file (undefined at the top level). */
  around(file: { fileId: number; rootId: number }, lines: readonly number[]): Promise<(EnclosingElement | undefined)[]>;
  /** The element each of these lines is read with: around it, else the one it documents (./enclosing.ts, `elementHoldingLine`). */
  holding(
    file: { fileId: number; rootId: number },
    lines: readonly number[],
  ): Promise<(EnclosingElement | undefined)[]>;
}

/** One consistent read of an index. */
export interface Snapshot {
  /** Moves on whenever a writer commits: answers cached for one generation stay true while it lasts. */
  readonly generation: number;
  /** The embedder the index's vectors were made with; undefined in an empty index. */
  readonly embedder: EmbedderRecord | undefined;
  /** The repositories a search may read, oldest first (a repository still being indexed the first time is not among them). */
  readonly repositories: readonly Repository[];
  /** The reads of a search over these repositories (root ids, in the index's order). */
  reads(roots: readonly number[]): ScopeReads;
  /** The vectors, or why there are none (the native addon cannot load, FAISS cannot take the dimension). */
  readonly vectors: VectorReads | { problem: string };
  readonly occurrences: OccurrenceReads;
  /**
   * A file's text as it was indexed, from a store that keeps it (the shared
   * one: a search from a machine without the checkout still shows code);
   * undefined from a store that reads files from disk.
   */
  storedText?(fileIds: readonly number[]): Promise<Map<number, Buffer>>;
}

/** Where a Searcher reads: the embedded index or the shared one. */
export interface SearchStore {
  readonly kind: 'embedded' | 'postgres';
  /** Where it is, for messages: the index directory, or the database (without its password). */
  readonly location: string;
  /**
   * Runs a search's reads in one snapshot. The embedded store runs one at a
   * time (one connection); the shared one runs many at once.
   */
  read<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
