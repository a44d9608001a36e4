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
import { join } from 'node:path';
import { StoreError } from '../store/database.js';
import { IndexStore, type EmbedderRecord } from '../store/store.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from '../store/vector-file.js';
import { embedderFromId } from '../vector/choose.js';
import type { Embedder } from '../vector/embedder.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import { compileFilters, type CompiledFilters, type SearchFilters } from './filters.js';
import { DEFAULT_FUSION_WEIGHTS, EXACT_NAME_BOOST, fuseScores, nameMatch, PARTIAL_NAME_BOOST, PATH_BOOST, type FusionWeights, type NameMatch, type ScoredHit } from './fusion.js';
import { ftsExpression, parseQuery, type ParsedQuery, type QueryKind } from './query.js';
import { cutLines, DEFAULT_SNIPPET_OPTIONS, SourceCache, SourceReader, type SnippetOptions } from './source.js';

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

export interface SearcherOptions {
  /** The index directory (`<root>/.ocvector`). */
  indexDir: string;
  /** The query embedder. Default: the index's own, made from its recorded id. */
  embedder?: Embedder;
  /** For an index built with an Ollama model: host, timeout. */
  ollama?: OllamaEmbedderOptions;
  vectorIndex?: VectorIndexOptions;
  /** Fusion weights by query kind (defaults: DEFAULT_FUSION_WEIGHTS). */
  weights?: Partial<Record<QueryKind, FusionWeights>>;
  onEvent?: (event: SearchEvent) => void;
}

export type SearchEvent = { type: 'vector-index'; event: VectorIndexEvent } | { type: 'fallback'; reason: string };

export interface SearchOptions extends SearchFilters {
  /** Results wanted, 1 to 100. Default 10. */
  k?: number;
  /** Default hybrid. */
  mode?: SearchMode;
  /** Read snippets (default true), with limits. */
  snippet?: boolean | SnippetOptions;
}

export interface SearchSignals {
  /** 1-based rank in the BM25 list. */
  lexical?: number;
  /** 1-based rank in the k-NN list, and the cosine similarity. */
  vector?: number;
  similarity?: number;
  name?: NameMatch;
  path?: boolean;
}

export interface SearchResult {
  /** Relative to the root, with forward slashes. */
  path: string;
  absolutePath: string;
  startLine: number;
  endLine: number;
  type: string;
  name: string;
  signature: string;
  description: string;
  language: string | null;
  score: number;
  signals: SearchSignals;
  snippet?: string;
  /** The file changed since it was indexed: lines may have moved. */
  stale: boolean;
  /** Why there is no snippet, when there is none. */
  problem?: string;
}

export interface SearchTimings {
  embedMs: number;
  vectorMs: number;
  lexicalMs: number;
  fusionMs: number;
  snippetMs: number;
  totalMs: number;
}

export interface SearchResponse {
  query: string;
  kind: QueryKind;
  /** The mode asked for, and the one that answered (lexical when the vector side is unavailable). */
  requestedMode: SearchMode;
  mode: SearchMode;
  fallback?: { reason: string };
  results: SearchResult[];
  root: string;
  embedder: string;
  /** Elements in the index. */
  elements: number;
  timings: SearchTimings;
}

export class SearchError extends Error {
  override readonly name = 'SearchError';
  constructor(
    message: string,
    readonly code: 'BAD_QUERY' | 'BAD_OPTION' | 'CLOSED',
  ) {
    super(message);
  }
}

export const MAX_K = 100;
/** Members too small to stand for their container. */
const FRAGMENT_TYPES: ReadonlySet<string> = new Set(['field', 'property', 'constant']);
/** A container at most this long shows its members in its snippet, so it stands for them. */
const SHOWN_CONTAINER_LINES = DEFAULT_SNIPPET_OPTIONS.maxLines;
/** Their fused score is scaled by this for prose queries. */
const FRAGMENT_PRIOR = 0.8;
export const MAX_QUERY_LENGTH = 2_000;
/** Terms in more than this share of the elements are left out of BM25 when rarer ones remain... */
const COMMON_TERM_SHARE = 0.03;
/** ...in an index of at least this many elements (smaller ones answer fast with every term). */
const COMMON_TERM_MIN_INDEX = 20_000;
/** Term weights kept by a searcher before it starts afresh. */
const MAX_CACHED_TERM_WEIGHTS = 50_000;
/** After the embedder failed, searches stay lexical this long before trying it again. */
const EMBEDDER_RETRY_MS = 30_000;
/** BM25 column weights: name, signature, description, path. */
const BM25 = 'bm25(elements_fts, 4.0, 2.0, 1.0, 0.5)';

interface ElementHit {
  id: number;
  type: string;
  name: string;
  startLine: number;
  endLine: number;
  signature: string;
  description: string;
  path: string;
  language: string | null;
  size: number;
  mtimeMs: number;
  hash: string | null;
  rootId: number;
}

export class Searcher {
  readonly indexDir: string;
  readonly root: string;
  readonly #store: IndexStore;
  readonly #options: SearcherOptions;
  readonly #roots: Map<number, string>;
  readonly #weights: Record<QueryKind, FusionWeights>;
  #vectors: VectorIndex;
  #record: EmbedderRecord;
  #embedder: Embedder | undefined;
  #embedderDownUntil = 0;
  #embedderProblem: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #sources = new SourceCache();
  /**
   * Term weights by term, for the generation of the vectors they were
   * counted against. Counting a common term reads its whole posting list
   * (over a millisecond at 100k elements), and the common terms are the ones
   * every query repeats.
   */
  #termWeights = { generation: -1, byTerm: new Map<string, number>() };
  /** The statements every search runs, prepared once (those with filters vary and are prepared per search). */
  readonly #sql;
  #closed = false;

  private constructor(options: SearcherOptions, store: IndexStore, vectors: VectorIndex, record: EmbedderRecord, roots: Map<number, string>) {
    this.#options = options;
    this.indexDir = options.indexDir;
    this.#store = store;
    this.#vectors = vectors;
    this.#record = record;
    this.#roots = roots;
    this.root = roots.values().next().value ?? options.indexDir;
    this.#weights = { ...DEFAULT_FUSION_WEIGHTS, ...options.weights };
    const db = store.db;
    createVocabularyView(db);
    this.#sql = {
      documentFrequency: db.prepare<[string], { doc: number }>('SELECT doc FROM temp.elements_vocab WHERE term = ?'),
      // Ranked by an alias, so FTS5 computes each row's BM25 once (it is lower-is-better: negated below).
      bm25: db.prepare<[string, number], { id: number; rank: number }>(`SELECT rowid AS id, ${BM25} AS rank FROM elements_fts WHERE elements_fts MATCH ? ORDER BY rank LIMIT ?`),
      // Is there a row past the threshold? Cheaper than counting them all.
      beyond: db.prepare<[string, number], { found: number }>('SELECT 1 AS found FROM elements_fts WHERE elements_fts MATCH ? LIMIT 1 OFFSET ?'),
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM elements_fts WHERE elements_fts MATCH ?'),
      elements: db.prepare<[string], ElementHit>(
        `SELECT e.vector_id AS id, e.element_type AS type, e.element_name AS name, e.start_line AS startLine, e.end_line AS endLine,
           e.signature, e.description, f.path, f.language, f.size, f.mtime_ms AS mtimeMs, f.hash, f.root_id AS rootId
         FROM elements e JOIN files f ON f.id = e.file_id WHERE e.vector_id IN (SELECT value FROM json_each(?))`,
      ),
    };
  }

  /** Opens the index read-only; throws StoreError NOT_FOUND when there is none (or it is empty). */
  static async open(options: SearcherOptions): Promise<Searcher> {
    const store = IndexStore.open(options.indexDir, { readonly: true });
    try {
      const record = store.embedder;
      if (!record) throw new StoreError(`the index at ${options.indexDir} is empty: run oc-vector-index first`, 'NOT_FOUND');
      const roots = store.roots();
      const vectors = await snapshot(store, () => VectorIndex.open(store, record, options.vectorIndex, vectorEvents(options)));
      const searcher = new Searcher(options, store, vectors, record, roots);
      searcher.#embedder = options.embedder;
      return searcher;
    } catch (error) {
      store.close();
      throw error;
    }
  }

  get embedderId(): string {
    return this.#record.id;
  }

  /** Searches run one after another: each holds a read snapshot of the database. */
  search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const run = this.#queue.then(() => this.#search(query, options));
    this.#queue = run.catch(() => {});
    return run;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#vectors.close();
    this.#store.close();
  }

  async #search(query: string, options: SearchOptions): Promise<SearchResponse> {
    if (this.#closed) throw new SearchError('the searcher is closed', 'CLOSED');
    const started = performance.now();
    const text = validateQuery(query);
    const k = validateK(options.k);
    const requestedMode = validateMode(options.mode);
    const filters = compileFilters(options);
    const parsed = parseQuery(text);
    const timings: SearchTimings = { embedMs: 0, vectorMs: 0, lexicalMs: 0, fusionMs: 0, snippetMs: 0, totalMs: 0 };

    return snapshot(this.#store, async () => {
      await this.#catchUp();
      // The query is embedded and the FAISS search submitted to its worker threads
      // first, so that BM25 runs here meanwhile: the two halves overlap.
      const vectorSide = requestedMode === 'lexical' ? undefined : await this.#startVectorSearch(parsed, k, filters, timings);
      let t = performance.now();
      let lexicalHits = requestedMode === 'vector' ? [] : this.#lexicalSearch(parsed, k, filters);
      timings.lexicalMs = performance.now() - t;
      const vectorResult = typeof vectorSide === 'string' ? vectorSide : vectorSide ? await vectorSide.hits : [];
      const fallback = typeof vectorResult === 'string' ? vectorResult : undefined;
      const vectorHits = typeof vectorResult === 'string' ? [] : vectorResult;
      // Vector-only asked for and unavailable: lexical is the honest substitute.
      const mode: SearchMode = fallback ? 'lexical' : requestedMode;
      if (fallback && requestedMode === 'vector') lexicalHits = this.#lexicalSearch(parsed, k, filters);

      t = performance.now();
      const ranked = this.#rank(parsed, lexicalHits, vectorHits, filters, k, mode);
      timings.fusionMs = performance.now() - t;

      t = performance.now();
      const results = this.#present(ranked, options.snippet);
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
        elements: this.#vectors.ntotal,
        timings,
      };
    });
  }

  /** Picks up what an indexer committed since the last search (or a switch of embedder). */
  async #catchUp(): Promise<void> {
    const record = this.#store.embedder;
    if (!record) return;
    const onEvent = vectorEvents(this.#options);
    if (record.id !== this.#record.id || record.dimension !== this.#record.dimension) {
      const fresh = await VectorIndex.open(this.#store, record, this.#options.vectorIndex, onEvent);
      this.#vectors.close();
      this.#vectors = fresh;
      this.#record = record;
      this.#embedder = undefined;
      this.#embedderDownUntil = 0;
      return;
    }
    this.#vectors = await this.#vectors.refresh(this.#store, record, onEvent);
  }

  /**
   * Embeds the query and submits the k-NN search; the hits arrive later.
   * Returns why there will be none instead when the embedder is unavailable.
   */
  async #startVectorSearch(parsed: ParsedQuery, k: number, filters: CompiledFilters, timings: SearchTimings): Promise<{ hits: Promise<{ id: number; score: number }[]> } | string> {
    const ntotal = this.#vectors.ntotal;
    if (ntotal === 0) return { hits: Promise.resolve([]) };
    const unavailable = () => `the embedder ${this.#record.id} is unavailable (${this.#embedderProblem}); answered by lexical search`;
    if (Date.now() < this.#embedderDownUntil) return unavailable();
    const embedStarted = performance.now();
    let query: Float32Array;
    try {
      const embedder = await this.#queryEmbedder();
      query = await embedder.embedQuery(parsed.semanticText, { termWeight: (term) => this.#termWeight(term) });
    } catch (error) {
      this.#embedderProblem = (error as Error).message;
      this.#embedderDownUntil = Date.now() + EMBEDDER_RETRY_MS;
      return unavailable();
    }
    timings.embedMs = performance.now() - embedStarted;

    const searchStarted = performance.now();
    // Filters apply after FAISS, which knows ids only: fetch deeper when they may thin the list.
    const wanted = Math.min(ntotal, filters.active || parsed.kind === 'path' ? Math.max(400, k * 40) : Math.max(100, k * 10));
    const nprobe = this.#vectors.nprobe;
    const search = this.#vectors.index.search(query, wanted, nprobe ? { nprobe } : {});
    const hits = search.then(({ labels, distances }) => {
      timings.vectorMs = performance.now() - searchStarted;
      const out: { id: number; score: number }[] = [];
      for (let i = 0; i < labels.length; i++) {
        const id = Number(labels[i]);
        if (id >= 0) out.push({ id, score: distances[i]! });
      }
      return out;
    });
    return { hits };
  }

  /**
   * Inverse document frequency of a (stemmed) term among the indexed
   * elements, scaled so that a term in 1% of them weighs 1. FTS5 keeps the
   * counts; a term it does not know (stemmed differently) keeps weight 1.
   */
  #termWeight(term: string): number {
    const { generation, ntotal } = this.#vectors;
    // Bounded: a long-lived searcher meets an open-ended vocabulary.
    if (this.#termWeights.generation !== generation || this.#termWeights.byTerm.size >= MAX_CACHED_TERM_WEIGHTS) this.#termWeights = { generation, byTerm: new Map() };
    const cached = this.#termWeights.byTerm.get(term);
    if (cached !== undefined) return cached;
    const df = this.#sql.documentFrequency.get(term)?.doc;
    const weight = !df || ntotal === 0 ? 1 : Math.log(1 + ntotal / df) / Math.log(101);
    this.#termWeights.byTerm.set(term, weight);
    return weight;
  }

  async #queryEmbedder(): Promise<Embedder> {
    if (this.#embedder) return this.#embedder;
    const embedder = embedderFromId(this.#record.id, this.#options.ollama);
    if (!embedder) throw new Error(`this version of ocvector cannot embed queries for ${this.#record.id}: run oc-vector-index to re-embed the index`);
    await embedder.init({ dimension: this.#record.dimension });
    this.#embedder = embedder;
    return embedder;
  }

  /** BM25 over names, signatures, descriptions and paths, filtered in SQL. */
  #lexicalSearch(parsed: ParsedQuery, k: number, filters: CompiledFilters): ScoredHit[] {
    if (parsed.kind === 'path') return this.#pathSearch(parsed, k, filters);
    const limit = Math.max(100, k * 10);
    const { terms, allCommon } = this.#distinctiveTerms(parsed.terms);
    if (terms.length === 0) return [];
    if (allCommon) {
      // Only common words: the elements holding all of them, else those holding the rarest.
      const all = this.#bm25(terms.map((term) => ftsExpression([term])).join(' AND '), filters, limit);
      return all.length > 0 ? all : this.#bm25(ftsExpression([this.#rarest(terms)])!, filters, limit);
    }
    return this.#bm25(ftsExpression(terms)!, filters, limit);
  }

  #bm25(match: string, filters: CompiledFilters, limit: number): ScoredHit[] {
    // The join to elements and files is paid only when a filter needs it.
    const rows = filters.active
      ? this.#store.db
          .prepare<unknown[], { id: number; rank: number }>(
            `SELECT e.vector_id AS id, ${BM25} AS rank FROM elements_fts JOIN elements e ON e.vector_id = elements_fts.rowid JOIN files f ON f.id = e.file_id
             WHERE elements_fts MATCH ? AND ${filters.sql} ORDER BY rank LIMIT ?`,
          )
          .all(match, ...filters.params, limit)
      : this.#sql.bm25.all(match, limit);
    return rows.map(({ id, rank }) => ({ id, score: -rank }));
  }

  /**
   * BM25 scores every element that holds any term, so a term in a large
   * share of a large index (`name`, `value`, `ts`) costs tens of
   * milliseconds and adds almost nothing to the ranking (its IDF is near
   * zero). Such terms are left out when rarer ones remain. Whether a term is
   * that common is asked of FTS5 itself: is there a row past the threshold?
   */
  #distinctiveTerms(terms: string[]): { terms: string[]; allCommon: boolean } {
    const count = this.#vectors.ntotal;
    if (count < COMMON_TERM_MIN_INDEX || terms.length < 2) return { terms, allCommon: false };
    const threshold = Math.floor(count * COMMON_TERM_SHARE);
    const rare = terms.filter((term) => this.#sql.beyond.get(ftsExpression([term])!, threshold) === undefined);
    return rare.length > 0 ? { terms: rare, allCommon: false } : { terms, allCommon: true };
  }

  #rarest(terms: string[]): string {
    return terms.map((term) => ({ term, n: this.#sql.count.get(ftsExpression([term])!)!.n })).sort((a, b) => a.n - b.n)[0]!.term;
  }

  /** A path query: the elements of the files whose path contains it, outermost first, in file order. */
  #pathSearch(parsed: ParsedQuery, k: number, filters: CompiledFilters): ScoredHit[] {
    const conditions = parsed.paths.map(() => 'instr(lower(f.path), ?) > 0').join(' OR ');
    return this.#store.db
      .prepare<unknown[], { id: number }>(
        `SELECT e.vector_id AS id FROM elements e JOIN files f ON f.id = e.file_id
         WHERE (${conditions}) AND ${filters.sql}
         ORDER BY length(f.path), f.path, instr(e.element_name, '.') > 0, e.start_line LIMIT ?`,
      )
      .all(...parsed.paths, ...filters.params, Math.max(100, k * 10))
      // In file order, not by relevance: a score that only keeps that order.
      .map((row, i) => ({ id: row.id, score: 1 / (i + 1) }));
  }

  /** Fusion, boosts, filters and de-duplication: the final order, cut to k. */
  #rank(parsed: ParsedQuery, lexicalHits: ScoredHit[], vectorHits: ScoredHit[], filters: CompiledFilters, k: number, mode: SearchMode): Ranked[] {
    const weights = mode === 'lexical' ? { lexical: 1, vector: 0 } : mode === 'vector' ? { lexical: 0, vector: 1 } : this.#weights[parsed.kind];
    const fused = fuseScores(lexicalHits, vectorHits, weights);
    const rows = this.#elements([...fused.keys()]);
    const ranked: Ranked[] = [];
    for (const candidate of fused.values()) {
      const row = rows.get(candidate.id);
      // Gone since FAISS was brought level (an indexer committed meanwhile), or filtered out.
      if (!row || !filters.matches({ path: row.path, language: row.language, type: row.type })) continue;
      const signals: SearchSignals = {};
      if (candidate.lexicalRank !== undefined) signals.lexical = candidate.lexicalRank;
      if (candidate.vectorRank !== undefined) {
        signals.vector = candidate.vectorRank;
        signals.similarity = candidate.vectorScore!;
      }
      // A field or constant is rarely what a question in words is after, and its short
      // document wins on length alone (BM25's normalisation, a few strong features).
      let score = parsed.kind === 'prose' && FRAGMENT_TYPES.has(row.type) ? candidate.score * FRAGMENT_PRIOR : candidate.score;
      if (parsed.identifiers.length > 0 && mode !== 'vector') {
        const match = nameMatch(row.name, parsed.identifiers);
        if (match) {
          signals.name = match;
          score += nameBoost(match, parsed.kind);
        }
      }
      if (parsed.paths.length > 0 && parsed.paths.some((hint) => row.path.toLowerCase().includes(hint))) {
        signals.path = true;
        if (parsed.kind !== 'path') score += PATH_BOOST;
      }
      ranked.push({ row, score, signals });
    }
    // A path query names files: when some match, only they answer it.
    const confined = parsed.kind === 'path' && ranked.some((hit) => hit.signals.path) ? ranked.filter((hit) => hit.signals.path) : ranked;
    confined.sort((a, b) => b.score - a.score || a.row.path.localeCompare(b.row.path) || a.row.startLine - b.row.startLine);
    return withoutNested(confined, k);
  }

  #elements(ids: number[]): Map<number, ElementHit> {
    if (ids.length === 0) return new Map();
    return new Map(this.#sql.elements.all(JSON.stringify(ids)).map((row) => [row.id, row]));
  }

  #present(ranked: Ranked[], snippet: SearchOptions['snippet']): SearchResult[] {
    const readers = new Map<number, SourceReader>();
    const wantText = snippet !== false;
    const limits = typeof snippet === 'object' ? snippet : {};
    return ranked.map(({ row, score, signals }) => {
      const root = this.#roots.get(row.rootId) ?? this.root;
      let reader = readers.get(row.rootId);
      if (!reader) readers.set(row.rootId, (reader = new SourceReader(root, this.#sources)));
      const state = reader.state(row, wantText);
      const result: SearchResult = {
        path: row.path,
        absolutePath: join(root, row.path),
        startLine: row.startLine,
        endLine: row.endLine,
        type: row.type,
        name: row.name,
        signature: row.signature,
        description: row.description,
        language: row.language,
        score: Number(score.toFixed(6)),
        signals,
        stale: state.stale,
      };
      if (wantText && state.text) result.snippet = cutLines(state.text, row.startLine, row.endLine, limits);
      if (state.problem) result.problem = state.problem;
      return result;
    });
  }
}

interface Ranked {
  row: ElementHit;
  score: number;
  signals: SearchSignals;
}


/**
 * One hit per stretch of code: a hit inside a better one (a method of a
 * class already listed) is dropped. A container ranked below its members
 * takes the place of the first of them when those are only fields or
 * constants: they stand for it badly.
 */
/**
 * A name the query spells is what an identifier query asks for, but only
 * context in a sentence ("the method of the AudioBuffer interface that..."),
 * where BM25 already weighs it: boosting it there put the container above
 * the member the sentence describes (evaluation sets, eval/README.md).
 */
function nameBoost(match: NameMatch, kind: QueryKind): number {
  if (kind === 'prose') return 0;
  return match === 'exact' ? EXACT_NAME_BOOST : PARTIAL_NAME_BOOST;
}

function withoutNested(ranked: Ranked[], k: number): Ranked[] {
  const kept: Ranked[] = [];
  // Only a container whose snippet shows the member stands for it; a long class or
  // interface listed for its name must not hide the method the query describes.
  const contains = (outer: ElementHit, inner: ElementHit) =>
    outer.path === inner.path && outer.startLine <= inner.startLine && inner.endLine <= outer.endLine && outer.endLine - outer.startLine < SHOWN_CONTAINER_LINES;
  // A container may come a little below k members; look that far, not further.
  for (const [i, hit] of ranked.entries()) {
    if (kept.length >= k && i >= 2 * k) break;
    if (kept.some((other) => contains(other.row, hit.row))) continue;
    const members = kept.filter((other) => contains(hit.row, other.row));
    if (members.length === 0) {
      if (kept.length < k) kept.push(hit);
    } else if (members.every((member) => FRAGMENT_TYPES.has(member.row.type))) {
      const at = kept.indexOf(members[0]!);
      kept[at] = { ...hit, score: members[0]!.score };
      for (const member of members.slice(1)) kept.splice(kept.indexOf(member), 1);
    }
  }
  return kept;
}

/**
 * A view of FTS5's term statistics in the connection's own temp schema.
 * `query_only` refuses even temp tables, so it is lifted for this one
 * statement; the index file is never written.
 */
function createVocabularyView(db: IndexStore['db']): void {
  const queryOnly = db.pragma('query_only', { simple: true }) === 1;
  if (queryOnly) db.pragma('query_only = OFF');
  try {
    db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.elements_vocab USING fts5vocab(main, elements_fts, row)');
  } finally {
    if (queryOnly) db.pragma('query_only = ON');
  }
}

/** Runs work inside one read transaction, so every read sees the same commit. */
async function snapshot<T>(store: IndexStore, work: () => Promise<T>): Promise<T> {
  store.db.exec('BEGIN');
  try {
    return await work();
  } finally {
    store.db.exec('COMMIT');
  }
}

function vectorEvents(options: SearcherOptions): (event: VectorIndexEvent) => void {
  return (event) => options.onEvent?.({ type: 'vector-index', event });
}

function validateQuery(query: unknown): string {
  if (typeof query !== 'string') throw new SearchError(`the query must be a string, not ${query === null ? 'null' : typeof query}`, 'BAD_QUERY');
  const text = query.trim();
  if (!text) throw new SearchError('the query is empty', 'BAD_QUERY');
  if (text.length > MAX_QUERY_LENGTH) throw new SearchError(`the query is ${text.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed`, 'BAD_QUERY');
  return text;
}

function validateK(k: unknown): number {
  if (k === undefined) return 10;
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > MAX_K) throw new SearchError(`k must be an integer from 1 to ${MAX_K}, not ${String(k)}`, 'BAD_OPTION');
  return k;
}

function validateMode(mode: unknown): SearchMode {
  if (mode === undefined) return 'hybrid';
  if (mode === 'hybrid' || mode === 'lexical' || mode === 'vector') return mode;
  throw new SearchError(`mode must be hybrid, lexical or vector, not ${String(mode)}`, 'BAD_OPTION');
}
