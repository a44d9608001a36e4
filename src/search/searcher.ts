/**
 * The Searcher: answers a query from an index with the right code, ranked,
 * fresh and fast. Both halves run for every query (vector k-NN through
 * FAISS, BM25 through FTS5), each over-fetched, then fused, filtered,
 * de-duplicated and cut to k; snippets come from the files as they are now.
 *
 * A Searcher may live long (an agent's tool, the MCP server): each search
 * reads one snapshot of the database and first brings its in-memory vectors
 * level with what an indexer has committed since. Searches run one at a
 * time.
 */
import { CircuitBreaker } from '../models/circuit-breaker.js';
import { FaissError } from '../native/errors.js';
import type { ElementRecord } from '../store/search-reader.js';
import type { Repository } from '../store/repositories.js';
import { openIndex } from '../store/open-index.js';
import type { EmbedderRecord, IndexStore } from '../store/store.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from '../store/vector-file.js';
import { checkVectors } from '../vector/check.js';
import { embedderFromId, withRecordedHost } from '../vector/choose.js';
import { EmbedderError, type Embedder } from '../vector/embedder.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import type { OpenAIEmbedderOptions } from '../vector/openai-embedder.js';
import { SearchError } from './errors.js';
import { compileFilters, type CompiledFilters, type SearchFilters } from './filters.js';
import { candidatesWanted, DEFAULT_FUSION_WEIGHTS, type FusionWeights, type ScoredHit } from './fusion.js';
import { FILTERED_OVERFETCH } from './knobs.js';
import { NO_LEXICAL_EVIDENCE, type LexicalEvidence } from './lexical-search.js';
import { planKnn, SearchScopes, type SearchScope } from './scopes.js';
import { parseQuery, type ParsedQuery, type QueryKind } from './query.js';
import { presentResults } from './present.js';
import { rankCandidates, type Evidence, type RankedHit } from './ranking.js';
import type { EmbedderStatus, SearchMode, SearchResponse, SearchTimings } from './response.js';
import { findReferences, type ReferencesOptions, type ReferencesResponse } from './references.js';
import { SourceCache, type SnippetOptions } from './source.js';
import { SEARCH_DEFAULTS, validateK, validateMode, validateQuery } from './validate.js';
import { ReferenceReader } from '../store/reference-reader.js';

export type {
  EmbedderStatus,
  SearchMode,
  SearchResponse,
  SearchResult,
  SearchSignals,
  SearchTimings,
} from './response.js';

export interface SearcherOptions {
  /** The index directory (`<root>/.ocvector`). */
  indexDir: string;
  /** The query embedder. Default: the index's own, made from its recorded id. */
  embedder?: Embedder;
  /**
   * For an index built with an Ollama model: host, timeout. Without a host,
   * the one the index recorded when it was last updated (else the default).
   */
  ollama?: OllamaEmbedderOptions;
  /**
   * For an index built with an OpenAI-compatible server: API key, timeout.
   * Without a base URL, the one the index recorded when it was last updated.
   */
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
  readonly indexDir: string;
  readonly root: string;
  readonly #store: IndexStore;
  readonly #options: SearcherOptions;
  readonly #weights: Record<QueryKind, FusionWeights>;
  /**
   * Undefined when the vectors cannot be had (the native addon cannot load,
   * the index records a dimension FAISS cannot take): every search is then
   * lexical, and says why (#vectorsProblem).
   */
  #vectors: VectorIndex | undefined;
  #vectorsProblem: string | undefined;
  #record: EmbedderRecord;
  #embedder: Embedder | undefined;
  /** One failure sends searches to lexical for EMBEDDER_RETRY_MS; then the embedder is tried again. */
  #embedderBreaker = new CircuitBreaker(1, EMBEDDER_RETRY_MS);
  #embedderProblem: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #sources = new SourceCache();
  readonly #references: ReferenceReader;
  readonly #scopes: SearchScopes;
  /** The generation the list of repositories was last read at. */
  #repositoriesGeneration: number;
  #closed = false;

  private constructor(
    options: SearcherOptions,
    store: IndexStore,
    vectors: VectorIndex | undefined,
    vectorsProblem: string | undefined,
    record: EmbedderRecord,
  ) {
    this.#vectorsProblem = vectorsProblem;
    this.#options = options;
    this.indexDir = options.indexDir;
    this.#store = store;
    this.#vectors = vectors;
    this.#record = record;
    this.#weights = { ...DEFAULT_FUSION_WEIGHTS, ...options.weights };
    this.#references = new ReferenceReader(store);
    this.#scopes = new SearchScopes(store, () => this.#elementCount());
    this.#repositoriesGeneration = store.generation;
    this.root = this.#scopes.repositories[0]?.root ?? options.indexDir;
  }

  /**
   * Opens the index read-only; throws StoreError NOT_FOUND when there is none
   * (or it is empty). Without its vectors (the native addon cannot load on
   * this machine, the index records a dimension FAISS cannot take) the
   * searcher still opens, and answers from the lexical index.
   */
  static async open(options: SearcherOptions): Promise<Searcher> {
    const opened = await openIndex(options.indexDir, {
      ...options.vectorIndex,
      onEvent: vectorEvents(options),
      withoutVectors: true,
    });
    const problem = opened.vectors ? undefined : opened.vectorsProblem;
    const searcher = new Searcher(options, opened.store, opened.vectors, problem, opened.embedder);
    searcher.#embedder = options.embedder;
    return searcher;
  }

  get embedderId(): string {
    return this.#record.id;
  }

  /** The repositories of the index, as of the last search (or opening). */
  repositories(): readonly Repository[] {
    return this.#scopes.repositories;
  }

  /** Searches run one after another: each holds a read snapshot of the database. */
  search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const run = this.#queue.then(() => this.#search(query, options));
    this.#queue = run.catch(() => {});
    return run;
  }

  /**
   * A symbol's definitions and every line where its name occurs, grouped by
   * file (search/references.ts). From the index alone: no embedder, no model.
   */
  references(symbol: string, options: ReferencesOptions = {}): Promise<ReferencesResponse> {
    const run = this.#queue.then(() =>
      this.#store.readSnapshot(async () => {
        if (this.#closed) throw new SearchError('the searcher is closed', 'CLOSED');
        this.#refreshRepositories();
        const scope = this.#scopes.resolve(options.repos);
        return findReferences(
          symbol,
          {
            references: this.#references,
            search: scope.reader,
            scope: scope.scoped ? new Set(scope.roots) : undefined,
            roots: this.#scopes.roots,
            repos: this.#scopes.names,
            root: this.root,
            sources: this.#sources,
          },
          options,
        );
      }),
    );
    this.#queue = run.catch(() => {});
    return run;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#vectors?.close();
    this.#store.close();
  }

  async #search(query: string, options: SearchOptions): Promise<SearchResponse> {
    if (this.#closed) throw new SearchError('the searcher is closed', 'CLOSED');
    const started = performance.now();
    const text = validateQuery(query);
    const k = validateK(options.k);
    const requestedMode = validateMode(options.mode);
    const parsed = parseQuery(text);
    const timings: SearchTimings = { embedMs: 0, vectorMs: 0, lexicalMs: 0, fusionMs: 0, snippetMs: 0, totalMs: 0 };

    return this.#store.readSnapshot(async () => {
      await this.#catchUp();
      const scope = this.#scopes.resolve(options.repos);
      const filters = compileFilters(options);
      // The query is embedded and the FAISS search submitted to its worker threads
      // first, so that BM25 runs here meanwhile: the two halves overlap.
      const vectorSide =
        requestedMode === 'lexical'
          ? undefined
          : await this.#startVectorSearch(requestedMode, parsed, k, filters, scope, timings);
      let t = performance.now();
      const lexical =
        requestedMode === 'vector'
          ? NO_LEXICAL_EVIDENCE
          : scope.lexical.search(parsed, k, filters, this.#store.generation);
      timings.lexicalMs = performance.now() - t;
      const vectorResult = typeof vectorSide === 'string' ? vectorSide : vectorSide ? await vectorSide.hits : [];
      const fallback = typeof vectorResult === 'string' ? vectorResult : undefined;
      const vectorHits = typeof vectorResult === 'string' ? [] : vectorResult;
      const mode: SearchMode = fallback ? 'lexical' : requestedMode;

      t = performance.now();
      const explain = options.explain ?? SEARCH_DEFAULTS.explain;
      const ranked = this.#rank(scope, parsed, lexical, vectorHits, filters, { k, mode, explain });
      timings.fusionMs = performance.now() - t;

      t = performance.now();
      const results = presentResults(ranked, parsed, {
        roots: this.#scopes.roots,
        repos: this.#scopes.names,
        root: this.root,
        sources: this.#sources,
        snippet: options.snippet ?? SEARCH_DEFAULTS.snippet,
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
        elements: scope.elementCount(),
        timings,
      };
    });
  }

  /** After an indexer committed: the list of repositories, which a run may have grown or a drop shrunk. */
  #refreshRepositories(): void {
    const generation = this.#store.generation;
    if (generation === this.#repositoriesGeneration) return;
    this.#repositoriesGeneration = generation;
    this.#scopes.refresh();
  }

  /** Elements searched: the vectors', or without them the database's count. */
  #elementCount(): number {
    return this.#vectors?.ntotal ?? this.#store.elementCount;
  }

  /**
   * Picks up what an indexer committed since the last search (or a switch of
   * embedder). Vectors that cannot be had (FAISS fails, or cannot take the
   * recorded dimension) leave this and later searches lexical, saying why,
   * until the index switches embedder again.
   */
  async #catchUp(): Promise<void> {
    this.#refreshRepositories();
    const record = this.#store.embedder;
    if (!record) return;
    const switched = record.id !== this.#record.id || record.dimension !== this.#record.dimension;
    if (!this.#vectors && !switched) return;
    const onEvent = vectorEvents(this.#options);
    if (switched) {
      this.#record = record;
      this.#embedder = undefined;
      this.#embedderBreaker = new CircuitBreaker(1, EMBEDDER_RETRY_MS);
    }
    try {
      const current = this.#vectors;
      if (switched || !current) {
        const fresh = await VectorIndex.open(this.#store, record, this.#options.vectorIndex, onEvent);
        current?.close();
        this.#vectors = fresh;
        this.#vectorsProblem = undefined;
      } else this.#vectors = await current.refresh(this.#store, record, onEvent);
    } catch (error) {
      if (!(error instanceof FaissError)) throw error;
      this.#vectors?.close();
      this.#vectors = undefined;
      this.#vectorsProblem = vectorsProblem(error);
    }
  }

  /**
   * Embeds the query and submits the k-NN search; the hits arrive later.
   * When the embedder is unavailable: for a hybrid search, returns why there
   * will be none; for a vector search, throws SearchError EMBEDDER_UNAVAILABLE.
   */
  async #startVectorSearch(
    requestedMode: SearchMode,
    parsed: ParsedQuery,
    k: number,
    filters: CompiledFilters,
    scope: SearchScope,
    timings: SearchTimings,
  ): Promise<{ hits: Promise<{ id: number; score: number }[]> } | string> {
    const vectors = this.#vectors;
    if (!vectors) {
      if (requestedMode === 'vector')
        throw new SearchError(`vector search is unavailable: ${this.#vectorsProblem}`, 'VECTORS_UNAVAILABLE');
      return `${this.#vectorsProblem}; answered by lexical search`;
    }
    const ntotal = vectors.ntotal;
    if (ntotal === 0) return { hits: Promise.resolve([]) };
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
      query = await this.#embedQuery(parsed.semanticText, scope);
    } catch {
      return unavailable();
    }
    timings.embedMs = performance.now() - embedStarted;

    const searchStarted = performance.now();
    // Filters apply after FAISS, which knows ids only: fetch deeper when they may thin the list.
    const depth = (filters.active || parsed.kind === 'path' ? FILTERED_OVERFETCH : 1) * candidatesWanted(k);
    const { restricted, inScope, wanted, kept } = planKnn(scope, vectors, this.#store.generation, depth);
    if (wanted === 0) return { hits: Promise.resolve([]) };
    // On the GPU copy when the options placed one there (vectorIndex.device), with the index's nprobe.
    const search = vectors.search(query, wanted, restricted);
    const hits = search.then(({ labels, distances }) => {
      timings.vectorMs = performance.now() - searchStarted;
      const out: { id: number; score: number }[] = [];
      for (let i = 0; i < labels.length && out.length < kept; i++) {
        const id = Number(labels[i]);
        if (id >= 0 && (!inScope || inScope.has(id))) out.push({ id, score: distances[i]! });
      }
      return out;
    });
    return { hits };
  }

  /** The query's vector; a failure is kept as the embedder's problem, and searches stay lexical a while. */
  async #embedQuery(text: string, scope: SearchScope, signal?: AbortSignal): Promise<Float32Array> {
    try {
      const embedder = await this.#queryEmbedder();
      const answer = await embedder.embedQuery(text, {
        termWeight: (term) => scope.lexical.termWeight(term, this.#vectors?.generation ?? -1),
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
    const run = this.#queue.then(() =>
      this.#store.readSnapshot(async (): Promise<EmbedderStatus> => {
        if (this.#closed) throw new SearchError('the searcher is closed', 'CLOSED');
        await this.#catchUp();
        const embedder = this.#record.id;
        if (!this.#vectors) return { embedder, available: false, problem: this.#vectorsProblem! };
        if (!this.#embedderBreaker.isOpen) {
          try {
            await this.#embedQuery('ocvector', this.#scopes.resolve(undefined), AbortSignal.timeout(PROBE_TIMEOUT_MS));
            return { embedder, available: true };
          } catch {}
        }
        return { embedder, available: false, problem: this.#embedderProblem ?? 'unknown' };
      }),
    );
    this.#queue = run.catch(() => {});
    return run;
  }

  async #queryEmbedder(): Promise<Embedder> {
    if (this.#embedder) return this.#embedder;
    // No host given: the one the index recorded, where its embedder was.
    const { ollama, openai } = this.#options;
    const servers = withRecordedHost({ ollama, openai }, this.#record.id, this.#store.meta.embedderHost);
    const embedder = embedderFromId(this.#record.id, servers);
    if (!embedder)
      throw new EmbedderError(
        `this version of ocvector cannot embed queries for ${this.#record.id}: run oc-vector-index to re-embed the index`,
        'UNKNOWN_EMBEDDER',
      );
    await embedder.init({ dimension: this.#record.dimension });
    this.#embedder = embedder;
    return embedder;
  }

  /** The ranking stack (search/ranking.ts) over the rows of every candidate that passes the filters. */
  #rank(
    scope: SearchScope,
    parsed: ParsedQuery,
    lexical: LexicalEvidence,
    vectorHits: ScoredHit[],
    filters: CompiledFilters,
    { k, mode, explain }: { k: number; mode: SearchMode; explain: boolean },
  ): RankedHit<ElementRecord>[] {
    const weights =
      mode === 'lexical'
        ? { lexical: 1, vector: 0 }
        : mode === 'vector'
          ? { lexical: 0, vector: 1 }
          : this.#weights[parsed.kind];
    const ids = new Set<number>([
      ...lexical.elements.map((hit) => hit.id),
      ...vectorHits.map((hit) => hit.id),
      ...lexical.definitions,
      ...lexical.namedFiles.flatMap((file) => file.ids),
    ]);
    const rows = scope.reader.rows([...ids]);
    // Gone since FAISS was brought level (an indexer committed meanwhile), or filtered out.
    for (const [id, row] of rows) if (!filters.matches(row)) rows.delete(id);
    const evidence: Evidence = {
      lexical: lexical.elements,
      vector: vectorHits,
      definitions: lexical.definitions,
      namedFiles: new Set(lexical.namedFiles.map((file) => file.fileId)),
      namedFileElements: new Set(lexical.namedFiles.flatMap((file) => file.ids)),
      files: lexical.files,
      wholeWord: lexical.wholeWord,
    };
    return rankCandidates(parsed, evidence, rows, { k, weights, lexicalSignals: mode !== 'vector', explain });
  }
}

/** Why there are no vectors, in one line (a FaissError's first, without the addon loader's prefix). */
function vectorsProblem(error: FaissError): string {
  return error.message.split('\n')[0]!.replace(/^ocvector: /, '');
}

function vectorEvents(options: SearcherOptions): (event: VectorIndexEvent) => void {
  return (event) => options.onEvent?.({ type: 'vector-index', event });
}
