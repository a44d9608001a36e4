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
import { CircuitBreaker } from '../models/circuit-breaker.js';
import { StoreError } from '../store/errors.js';
import { openStore, type StoreChoice, type VectorIndexEvent, type VectorIndexOptions } from '../store/open.js';
import type { SearchStore, Snapshot } from '../store/reads.js';
import type { ElementRecord, EmbedderRecord, Repository } from '../store/rows.js';
import { checkVectors } from '../vector/check.js';
import { embedderOptionsOf, type EmbedderOptions } from '../vector/backends.js';
import { embedderFromId } from '../vector/choose.js';
import { EmbedderError, type Embedder } from '../vector/embedder.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import type { OpenAIEmbedderOptions } from '../vector/openai-embedder.js';
import { SearchError } from './errors.js';
import { compileFilters, type CompiledFilters, type SearchFilters } from './filters.js';
import { candidatesWanted, DEFAULT_FUSION_WEIGHTS, type FusionWeights, type ScoredHit } from './ranking/fusion.js';
import { FILTERED_OVERFETCH } from './ranking/knobs.js';
import { NO_LEXICAL_EVIDENCE } from './lexical-search.js';
import { SearchScopes, type SearchScope } from './scopes.js';
import { parseQuery, type ParsedQuery, type QueryKind } from './query.js';
import { presentResults } from './present.js';
import type { RankedHit } from './ranking/ranking.js';
import { rankEvidence } from './rank-evidence.js';
import type { EmbedderStatus, SearchMode, SearchResponse, SearchTimings } from './response.js';
import { findReferences, type ReferencesOptions, type ReferencesResponse } from './references.js';
import { SourceCache, SourceReader, type SnippetOptions, type SourceStates, StoredSources } from './source.js';
import { SEARCH_DEFAULTS, validateK, validateMode, validateQuery } from './validate.js';
import { searchFiles, type FileSearchOptions, type FileSearchResponse } from './localise/file-search.js';

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
/** After the embedder failed, searches stay lexical this long before trying it again. */
const EMBEDDER_RETRY_MS = 30_000;
/** How long a status probe waits for the embedder. */
const PROBE_TIMEOUT_MS = 5_000;

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
  #record: EmbedderRecord;
  #embedder: Embedder | undefined;
  /** One failure sends searches to lexical for EMBEDDER_RETRY_MS; then the embedder is tried again. */
  #embedderBreaker = new CircuitBreaker(1, EMBEDDER_RETRY_MS);
  #embedderProblem: string | undefined;
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
    this.#record = first.embedder!;
    this.#embedder = options.embedder;
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
    return this.#record.id;
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
  searchFiles(text: string, options: FileSearchOptions = {}): Promise<FileSearchResponse> {
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
      this.#noteEmbedder(snapshot.embedder);
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
      const vectorSide =
        requestedMode === 'lexical'
          ? undefined
          : await this.#startVectorSearch(snapshot, requestedMode, parsed, k, filters, scope, timings);
      let t = performance.now();
      const lexical =
        requestedMode === 'vector'
          ? NO_LEXICAL_EVIDENCE
          : await scope.lexical.search(scope, parsed, k, filters, snapshot.generation);
      timings.lexicalMs = performance.now() - t;
      const vectorResult = typeof vectorSide === 'string' ? vectorSide : vectorSide ? await vectorSide.hits : [];
      const fallback = typeof vectorResult === 'string' ? vectorResult : undefined;
      const vectorHits = typeof vectorResult === 'string' ? [] : vectorResult;
      const mode: SearchMode = fallback ? 'lexical' : requestedMode;

      t = performance.now();
      const explain = options.explain ?? SEARCH_DEFAULTS.explain;
      const weights = mode === 'hybrid' ? this.#weights[parsed.kind] : undefined;
      const ranked = await rankEvidence(scope, parsed, lexical, vectorHits, filters, { k, mode, explain, weights });
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
        embedder: this.#record.id,
        elements: await scope.elementCount(),
        timings,
      };
    });
  }

  /** A switch of embedder since the last search (an index rebuilt with another): the query embedder is made afresh. */
  #noteEmbedder(record: EmbedderRecord | undefined): void {
    if (!record || (record.id === this.#record.id && record.dimension === this.#record.dimension)) return;
    this.#record = record;
    this.#embedder = undefined;
    this.#embedderBreaker = new CircuitBreaker(1, EMBEDDER_RETRY_MS);
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

  /**
   * Embeds the query and submits the k-NN search; the hits arrive later.
   * When the embedder is unavailable: for a hybrid search, returns why there
   * will be none; for a vector search, throws SearchError EMBEDDER_UNAVAILABLE.
   */
  async #startVectorSearch(
    snapshot: Snapshot,
    requestedMode: SearchMode,
    parsed: ParsedQuery,
    k: number,
    filters: CompiledFilters,
    scope: SearchScope,
    timings: SearchTimings,
  ): Promise<{ hits: Promise<ScoredHit[]> } | string> {
    const vectors = snapshot.vectors;
    if ('problem' in vectors) {
      if (requestedMode === 'vector')
        throw new SearchError(`vector search is unavailable: ${vectors.problem}`, 'VECTORS_UNAVAILABLE');
      return `${vectors.problem}; answered by lexical search`;
    }
    if (vectors.count === 0) return { hits: Promise.resolve([]) };
    const unavailable = () => {
      // Vector search alone was asked for: answering by keywords would hide that it was not done.
      if (requestedMode === 'vector')
        throw new SearchError(
          `vector search needs the embedder ${this.#record.id}, which is unavailable: ${this.#embedderProblem}`,
          'EMBEDDER_UNAVAILABLE',
        );
      return `the embedder ${this.#record.id} is unavailable (${this.#embedderProblem}); answered by lexical search`;
    };
    if (this.#embedderBreaker.isOpen) return unavailable();
    const embedStarted = performance.now();
    let query: Float32Array;
    try {
      query = await this.#embedQuery(snapshot, parsed.semanticText, scope);
    } catch {
      return unavailable();
    }
    timings.embedMs = performance.now() - embedStarted;

    const searchStarted = performance.now();
    // Filters apply after the k-NN, which knows ids only: fetch deeper when they may thin the list.
    const depth = (filters.active || parsed.kind === 'path' ? FILTERED_OVERFETCH : 1) * candidatesWanted(k);
    const hits = vectors.nearest(query, depth, scope.vectors).then((found) => {
      timings.vectorMs = performance.now() - searchStarted;
      return found;
    });
    // Not awaited here: BM25 runs meanwhile. A failure is seen when the hits are awaited.
    hits.catch(() => {});
    return { hits };
  }

  /** The query's vector; a failure is kept as the embedder's problem, and searches stay lexical a while. */
  async #embedQuery(snapshot: Snapshot, text: string, scope: SearchScope, signal?: AbortSignal): Promise<Float32Array> {
    try {
      const embedder = await this.#queryEmbedder();
      const answer = await embedder.embedQuery(text, {
        termWeights: (terms) => scope.lexical.termWeights(scope, terms, snapshot.generation),
        ...(signal ? { signal } : {}),
      });
      // Whatever the embedder: a query vector that is not one of the index's dimension, or holds NaN, searches nothing.
      // All zeros is allowed: a query of words common to every file weighs nothing for the built-in embedder.
      const vector = checkVectors(embedder, answer, { count: 1, dimension: this.#record.dimension, allowZero: true });
      this.#embedderBreaker.succeeded();
      return vector;
    } catch (error) {
      this.#embedderProblem = signal?.aborted ? `no answer within ${PROBE_TIMEOUT_MS} ms` : (error as Error).message;
      this.#embedderBreaker.failed();
      throw error;
    }
  }

  /**
   * Whether vector search works now, for a status report: the embedder is
   * asked to embed a probe query (unless it failed in the last
   * EMBEDDER_RETRY_MS). When it does not, hybrid searches answer lexically
   * and vector searches fail.
   */
  embedderStatus(): Promise<EmbedderStatus> {
    return this.#read(async (snapshot): Promise<EmbedderStatus> => {
      const embedder = this.#record.id;
      if ('problem' in snapshot.vectors) return { embedder, available: false, problem: snapshot.vectors.problem };
      if (!this.#embedderBreaker.isOpen) {
        try {
          const scope = this.#scopes.resolve(snapshot, undefined);
          await this.#embedQuery(snapshot, 'ocvector', scope, AbortSignal.timeout(PROBE_TIMEOUT_MS));
          return { embedder, available: true };
        } catch {}
      }
      return { embedder, available: false, problem: this.#embedderProblem ?? 'unknown' };
    });
  }

  async #queryEmbedder(): Promise<Embedder> {
    if (this.#embedder) return this.#embedder;
    // The caller's servers only (vector/choose.ts): the index says which model, never where to send the query.
    const embedder = embedderFromId(this.#record.id, embedderOptionsOf(this.#options));
    if (!embedder)
      throw new EmbedderError(
        `this version of ocvector cannot embed queries for ${this.#record.id}: run oc-vector-index to re-embed the index`,
        'UNKNOWN_EMBEDDER',
      );
    await embedder.init({ dimension: this.#record.dimension });
    this.#embedder = embedder;
    return embedder;
  }
}

/** The error for an index with nothing in it. */
function emptyIndex(location: string): Error {
  return new StoreError(`the index at ${location} is empty: run oc-vector-index first`, 'NOT_FOUND');
}
