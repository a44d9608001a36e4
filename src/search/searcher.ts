/**
 * The Searcher: answers a query from an index with the right code, ranked,
 * fresh and fast. Both halves run for every query (vector k-NN, BM25), each
 * over-fetched, then fused, filtered, de-duplicated and cut to k; snippets
 * come from the files as they are now (or, where a repository is not
 * checked out here, from the text a shared store keeps).
 *
 * The index is read through a SearchStore (store/reads.ts): the embedded
 * one (SQLite + FAISS, the default) or the shared one (PostgreSQL +
 * pgvector, `store: 'postgres://…'`), one ranking above both. A Searcher may
 * live long (an agent's tool, the MCP server): each search reads one
 * snapshot of the index, which the embedded store first brings level with
 * what an indexer committed since. The embedded store answers searches one
 * at a time; the shared one answers many at once.
 */
import { isDirectory } from '../files/root.js';
import { StoreError } from '../store/errors.js';
import { openStore, type StoreChoice, type VectorIndexEvent, type VectorIndexOptions } from '../store/open.js';
import type { SearchStore, Snapshot } from '../store/reads.js';
import type { ElementRecord, Repository } from '../store/rows.js';
import type { EmbedderOptions } from '../vector/backends.js';
import type { Embedder } from '../vector/embedder.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import type { OpenAIEmbedderOptions } from '../vector/openai-embedder.js';
import { SearchError } from './errors.js';
import { compileFilters, type SearchFilters } from './filters.js';
import { candidatesWanted, DEFAULT_FUSION_WEIGHTS, type FusionWeights } from './ranking/fusion.js';
import { NO_LEXICAL_EVIDENCE } from './lexical-search.js';
import { QueryVectors } from './query-vectors.js';
import { SearchScopes } from './scopes.js';
import { parseQuery, type QueryKind } from './query.js';
import { presentResults } from './present.js';
import type { RankedHit } from './ranking/ranking.js';
import { rankEvidence } from './rank-evidence.js';
import type { EmbedderStatus, SearchMode, SearchResponse, SearchTimings } from './response.js';
import { findReferences, type ReferencesOptions, type ReferencesResponse } from './references.js';
import { SourceCache, SourceReader, type SnippetOptions, type SourceStates, StoredSources } from './source.js';
import { SEARCH_DEFAULTS, validateK, validateMode, validateQuery } from './validate.js';
import type { FileSearchOptions, FileSearchResponse } from './localise/file-search.js';

export type {
  EmbedderStatus,
  SearchMode,
  SearchResponse,
  SearchResult,
  SearchSignals,
  SearchTimings,
} from './response.js';

export interface SearcherOptions {
  /** The embedded index's directory (`<root>/.ocvector`); not read when `store` names another store. */
  indexDir?: string;
  /**
   * Where the index is: the embedded one in `indexDir` (the default), or a
   * shared PostgreSQL store (`postgres://user@host:port/db`, or
   * `{ url, schema }`), or a store already open (the Searcher then leaves
   * closing it to the caller).
   */
  store?: StoreChoice | SearchStore;
  /**
   * Where repositories are checked out on this machine, by name, when not
   * where they were indexed from (a shared index built by CI): snippets are
   * read there, fresh, with the stale flag. A repository found nowhere shows
   * the text the shared store kept.
   */
  checkouts?: Readonly<Record<string, string>>;
  /** The query embedder. Default: the index's own, made from its recorded id by its backend. */
  embedder?: Embedder;
  /**
   * What the index's embedder backend is asked, under its name: `ollama` (host, timeout;
   * none: the local default), `openai` (base URL, API key, timeout; none: a hybrid search
   * answers lexically, naming the option), a registered backend's own. The server the
   * index recorded is never asked: an index may come with a clone.
   */
  embedderOptions?: EmbedderOptions;
  /** @deprecated `embedderOptions.ollama`, which wins where both are given. */
  ollama?: OllamaEmbedderOptions;
  /** @deprecated `embedderOptions.openai`, which wins where both are given. */
  openai?: OpenAIEmbedderOptions;
  vectorIndex?: VectorIndexOptions;
  /** Fusion weights by query kind (defaults: DEFAULT_FUSION_WEIGHTS). */
  weights?: Partial<Record<QueryKind, FusionWeights>>;
  onEvent?: (event: SearchEvent) => void;
}

export type SearchEvent = { type: 'vector-index'; event: VectorIndexEvent } | { type: 'fallback'; reason: string };

export interface SearchOptions extends SearchFilters {
  /** Results wanted, 1 to 100. Default 10. */
  k?: number;
  /**
   * Default hybrid. When the embedder is unavailable, a hybrid search
   * answers lexically (with `fallback` saying why), while a vector search
   * rejects with SearchError EMBEDDER_UNAVAILABLE.
   */
  mode?: SearchMode;
  /** Read snippets (default true), with limits. */
  snippet?: boolean | SnippetOptions;
  /** Add to each result how its score added up: features, weights, contributions (default false). */
  explain?: boolean;
  /** Only these repositories of the index, by name (default: all of them). */
  repos?: readonly string[];
}

export { MAX_K, MAX_QUERY_LENGTH, SEARCH_DEFAULTS } from './validate.js';
export class Searcher {
  /** The embedded index's directory, or where the shared store is (without its password). */
  readonly indexDir: string;
  /** The first repository's root: where a result of no known repository is read from (paths are checked against searchRoots). */
  readonly root: string;
  readonly #store: SearchStore;
  /** The store was opened by the caller, who closes it. */
  readonly #borrowed: boolean;
  readonly #options: SearcherOptions;
  readonly #weights: Record<QueryKind, FusionWeights>;
  readonly #vectors: QueryVectors;
  readonly #sources = new SourceCache();
  readonly #scopes: SearchScopes;
  /** Whether each repository is checked out here (its directory exists), by root directory. */
  readonly #checkedOut = new Map<string, boolean>();
  #closed = false;

  private constructor(options: SearcherOptions, store: SearchStore, borrowed: boolean, first: Snapshot) {
    this.#options = options;
    this.#store = store;
    this.#borrowed = borrowed;
    this.indexDir = store.location;
    this.#vectors = new QueryVectors(first.embedder!, options, options.embedder);
    this.#weights = { ...DEFAULT_FUSION_WEIGHTS, ...options.weights };
    const checkouts = options.checkouts ?? {};
    this.#scopes = new SearchScopes((repository) => checkouts[repository.name] ?? repository.root);
    this.#scopes.see(first.repositories);
    this.root = this.#scopes.roots.values().next().value ?? store.location;
  }

  /**
   * Opens the index read-only; throws StoreError NOT_FOUND when there is none
   * (or it is empty). Without its vectors (the native addon cannot load on
   * this machine, the index records a dimension FAISS cannot take) the
   * searcher still opens, and answers from the lexical index.
   */
  static async open(options: SearcherOptions): Promise<Searcher> {
    const given = options.store;
    const borrowed = typeof given === 'object' && given !== null && 'read' in given;
    const store = borrowed
      ? given
      : await (
          await openStore(given, {
            indexDir: options.indexDir,
            vectorIndex: options.vectorIndex,
            onEvent: (event) => options.onEvent?.({ type: 'vector-index', event }),
          })
        ).openSearch();
    try {
      const first = await store.read(async (snapshot) => {
        if (!snapshot.embedder) throw emptyIndex(store.location);
        return snapshot;
      });
      return new Searcher(options, store, borrowed, first);
    } catch (error) {
      if (!borrowed) await store.close();
      throw error;
    }
  }

  get embedderId(): string {
    return this.#vectors.id;
  }

  /** The repositories of the index, as of the last search (or opening). */
  repositories(): readonly Repository[] {
    return this.#scopes.repositories;
  }

  /** The repositories of the index now (one read of the index: a repository indexed since the last search is among them). */
  currentRepositories(): Promise<readonly Repository[]> {
    return this.#read(async () => this.#scopes.repositories);
  }

  /**
   * Where the repositories a search naming `repos` reads are on this machine
   * (every one when none): what a path a caller gives is checked against.
   * An unknown name fails with SearchError UNKNOWN_REPO, naming no other.
   */
  searchRoots(repos?: readonly string[]): Promise<string[]> {
    return this.#read(async () => this.#scopes.directories(repos));
  }

  /** Runs a search. The embedded store answers one at a time, each in a read snapshot of its database. */
  search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    return this.#search(query, options);
  }

  /**
   * Which files an issue, a bug report or a request points at, ranked, with
   * the evidence for each (search/localise/file-search.ts). Takes the whole
   * text, up to MAX_ISSUE_LENGTH characters.
   */
  async searchFiles(text: string, options: FileSearchOptions = {}): Promise<FileSearchResponse> {
    // Loaded at the first file search: a searcher that answers queries only never reads an issue.
    const { searchFiles } = await import('./localise/file-search.js');
    return searchFiles(
      {
        search: (query, searchOptions) => this.#search(query, searchOptions),
        readScope: (repos, work) =>
          this.#read((snapshot) =>
            work(this.#scopes.resolve(snapshot, repos), snapshot, {
              names: this.#scopes.names,
              roots: this.#scopes.roots,
            }),
          ),
      },
      text,
      options,
    );
  }

  /**
   * A symbol's definitions and every line where its name occurs, grouped by
   * file (search/references.ts). From the index alone: no embedder, no model.
   */
  references(symbol: string, options: ReferencesOptions = {}): Promise<ReferencesResponse> {
    return this.#read(async (snapshot) => {
      const scope = this.#scopes.resolve(snapshot, options.repos);
      return findReferences(
        symbol,
        {
          occurrences: snapshot.occurrences,
          search: scope.reads,
          scope: scope.scoped ? scope.roots : undefined,
          roots: this.#scopes.roots,
          repos: this.#scopes.names,
          root: this.root,
          sources: (rootId, fileIds) => this.#sourcesOf(snapshot, rootId, fileIds),
        },
        options,
      );
    });
  }

  /**
   * Whether vector search works now, for a status report (query-vectors.ts):
   * when it does not, hybrid searches answer lexically and vector searches fail.
   */
  embedderStatus(): Promise<EmbedderStatus> {
    return this.#read((snapshot) => this.#vectors.status(snapshot, this.#scopes.resolve(snapshot, undefined)));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Closing cannot be awaited here (close is synchronous); a pool that fails to end has no one left to tell.
    if (!this.#borrowed) this.#store.close().catch(() => {});
  }

  /** Reads one snapshot of the index, after checking the searcher is open and noting a switch of embedder. */
  #read<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new SearchError('the searcher is closed', 'CLOSED'));
    return this.#store.read(async (snapshot) => {
      if (this.#closed) throw new SearchError('the searcher is closed', 'CLOSED');
      this.#vectors.note(snapshot.embedder);
      this.#scopes.see(snapshot.repositories);
      return work(snapshot);
    });
  }

  async #search(query: string, options: SearchOptions): Promise<SearchResponse> {
    const started = performance.now();
    const text = validateQuery(query);
    const k = validateK(options.k);
    const requestedMode = validateMode(options.mode);
    const parsed = parseQuery(text);
    const timings: SearchTimings = { embedMs: 0, vectorMs: 0, lexicalMs: 0, fusionMs: 0, snippetMs: 0, totalMs: 0 };

    return this.#read(async (snapshot) => {
      const scope = this.#scopes.resolve(snapshot, options.repos);
      const filters = compileFilters(options);
      // The query is embedded and the k-NN submitted first (FAISS works on its worker threads,
      // a database server on its own), so that BM25 runs meanwhile: the two halves overlap.
      // Counted in modules: where a package ships each module several times over, each list is that much deeper.
      const filesPerModule = await scope.filesPerModule();
      const candidates = candidatesWanted(k, filesPerModule);
      const vectorSide =
        requestedMode === 'lexical'
          ? undefined
          : await this.#vectors.start(snapshot, requestedMode, parsed, candidates, filters, scope, timings);
      let t = performance.now();
      const lexical =
        requestedMode === 'vector'
          ? NO_LEXICAL_EVIDENCE
          : await scope.lexical.search(scope, parsed, candidates, filters, snapshot.generation);
      timings.lexicalMs = performance.now() - t;
      const vectorResult = typeof vectorSide === 'string' ? vectorSide : vectorSide ? await vectorSide.hits : [];
      const fallback = typeof vectorResult === 'string' ? vectorResult : undefined;
      const vectorHits = typeof vectorResult === 'string' ? [] : vectorResult;
      const mode: SearchMode = fallback ? 'lexical' : requestedMode;

      t = performance.now();
      const explain = options.explain ?? SEARCH_DEFAULTS.explain;
      const weights = mode === 'hybrid' ? this.#weights[parsed.kind] : undefined;
      const ranked = await rankEvidence(scope, parsed, lexical, vectorHits, filters, {
        k,
        mode,
        explain,
        weights,
        filesPerModule,
      });
      timings.fusionMs = performance.now() - t;

      t = performance.now();
      const snippet = options.snippet ?? SEARCH_DEFAULTS.snippet;
      const sources = await this.#sourcesFor(snapshot, ranked, snippet !== false);
      const results = presentResults(ranked, parsed, {
        roots: this.#scopes.roots,
        repos: this.#scopes.names,
        root: this.root,
        sources: (rootId) => sources.get(rootId)!,
        snippet,
        explain,
      });
      timings.snippetMs = performance.now() - t;
      timings.totalMs = performance.now() - started;
      if (fallback) this.#options.onEvent?.({ type: 'fallback', reason: fallback });
      return {
        query: text,
        kind: parsed.kind,
        requestedMode,
        mode,
        ...(fallback ? { fallback: { reason: fallback } } : {}),
        results,
        root: this.root,
        embedder: this.#vectors.id,
        elements: await scope.elementCount(),
        timings,
      };
    });
  }

  /** Where each repository of the results is read from, its files' stored texts fetched in one read when needed. */
  async #sourcesFor(
    snapshot: Snapshot,
    ranked: readonly RankedHit<ElementRecord>[],
    wantText: boolean,
  ): Promise<Map<number, SourceStates>> {
    const byRoot = new Map<number, number[]>();
    for (const { row } of ranked) {
      const files = byRoot.get(row.rootId);
      if (files) files.push(row.fileId);
      else byRoot.set(row.rootId, [row.fileId]);
    }
    const out = new Map<number, SourceStates>();
    for (const [rootId, fileIds] of byRoot)
      out.set(rootId, await this.#sourcesOf(snapshot, rootId, wantText ? fileIds : []));
    return out;
  }

  /**
   * A repository checked out here is read from disk (fresh, with the stale
   * flag); one that is not shows the text its store kept, when it keeps it.
   */
  async #sourcesOf(snapshot: Snapshot, rootId: number, fileIds: readonly number[]): Promise<SourceStates> {
    const root = this.#scopes.roots.get(rootId) ?? this.root;
    if (!snapshot.storedText || this.#isCheckedOut(root)) return new SourceReader(root, this.#sources);
    return new StoredSources(fileIds.length > 0 ? await snapshot.storedText([...new Set(fileIds)]) : new Map());
  }

  #isCheckedOut(root: string): boolean {
    let known = this.#checkedOut.get(root);
    if (known === undefined) this.#checkedOut.set(root, (known = isDirectory(root)));
    return known;
  }
}

/** The error for an index with nothing in it. */
function emptyIndex(location: string): Error {
  return new StoreError(`the index at ${location} is empty: run oc-vector-index first`, 'NOT_FOUND');
}
