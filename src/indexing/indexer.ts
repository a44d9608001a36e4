/**
 * The Indexer: brings an index up to date with the files on disk, at a cost
 * that follows the change. Files whose size and mtime match the database
 * are not read; files read and found equal (same hash) are not analysed;
 * elements whose document is unchanged are not embedded and keep their
 * vector. Every batch of files is one SQLite transaction. The FAISS file is
 * derived from the database: written at a checkpoint, and brought level by
 * replaying later changes whenever it is opened (see store/vector-file.ts),
 * so a crash at any moment leaves an index that opens consistent, and a
 * run that changes one file never loads the vectors of the rest.
 *
 * Policy on failure: a file that cannot be read or analysed is recorded as
 * failed and the run goes on; an embedder that fails stops the run (after
 * committing the files already done), because vectors of another embedder
 * cannot stand in for its own.
 */
import { stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../analysis/content.js';
import { Analyzer, type AnalysisOutput, type Enricher } from '../analysis/analyzer.js';
import { type LlmChoice, makeEnricher } from '../analysis/llm/choose-enricher.js';
import { AnalysisPool, type FileAnalyzer } from './pool.js';
import { isSkipped, type CodeFile, type SkippedFile } from '../analysis/types.js';
import { defaultIndexDir, findRoot } from '../files/root.js';
import { gitChangesSince } from '../files/git.js';
import { contentHash } from '../files/hash.js';
import { LineStarts } from '../files/line-starts.js';
import { readRegularFile } from '../files/read.js';
import { redactSecrets } from '../files/redact.js';
import {
  isInside,
  scanPaths,
  scanRoot,
  type ExcludedFile,
  type ScannedFile,
  type SkippedEntry,
} from '../files/scan.js';
import { prepareDirectory, StoreError } from '../store/database.js';
import { IndexStore, UNTRUSTED_MTIME, type EmbedderRecord, type FileRow } from '../store/store.js';
import { WriteLock } from '../store/lock.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from '../store/vector-file.js';
import {
  chooseEmbedder,
  type EmbedderServers,
  isOutdatedBuiltin,
  withRecordedHost,
  type EmbedderChoice,
} from '../vector/choose.js';
import { checkDimension, isIndexableDimension } from '../vector/check.js';
import { buildDocuments } from '../vector/document.js';
import type { Embedder } from '../vector/embedder.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import type { OpenAIEmbedderOptions } from '../vector/openai-embedder.js';
import { DryRunTally, estimateRun, type DryRunReport } from './dry-run.js';
import { EmbeddingQueue } from './embedding-queue.js';
import { embedderOnPool } from './pooled-embedder.js';
import { eachConcurrently, IndexRun, largestFirst, type FileOutcome } from './index-run.js';
import type { LastRun } from '../store/meta.js';
import type { IndexEvent, IndexSummary } from './events.js';
import { OcvectorError } from '../errors.js';

export interface IndexerOptions {
  /** A file or directory; the root (enclosing git work tree, else this directory) is found from it. */
  path: string;
  /** The root, when not the one found from `path` (several paths indexed under their common root). `path` must lie inside it. */
  root?: string;
  /** Where the database lives. Default `<root>/.ocvector`. */
  indexDir?: string;
  /**
   * Default: the index's own embedder; for a new index Ollama when it
   * answers, else the built-in one. An OpenAI-compatible server only when
   * named ('openai', or options with `kind: 'openai'`).
   */
  embedder?: EmbedderChoice;
  /**
   * LLM analysis: false (syntax tree only), true, Ollama options, or
   * OpenAI-compatible options (`kind: 'openai'`). Default true (Ollama).
   */
  llm?: LlmChoice;
  /**
   * What to ask of Ollama when an embedder is made from a name ('auto',
   * 'ollama', the index's recorded one): host, model, timeouts. Its host and
   * its timeout are also the analysis model's, unless `llm` names them.
   */
  ollama?: OllamaEmbedderOptions;
  /**
   * What to ask of an OpenAI-compatible server when an embedder is made
   * from a name ('openai', the index's recorded one): base URL, API key,
   * model, timeouts. Without a base URL, the one the index recorded. Its
   * address, key and timeout are also an OpenAI-compatible analysis
   * model's, unless `llm` names them.
   */
  openai?: OpenAIEmbedderOptions;
  /**
   * The enricher to use instead of the Ollama one `llm` describes (then
   * `llm` is not read). It keeps its own cache of answers.
   */
  enricher?: Enricher;
  /**
   * Analyses files instead of the indexer's own pool of worker threads
   * (then `threads` and `limits` are not read). The caller closes it.
   */
  analyzer?: FileAnalyzer;
  /** Forget every file and element first (keeps the caches): needed to change embedder. */
  rebuild?: boolean;
  /** Only files git reports changed since this revision (plus untracked ones). */
  since?: string;
  /** Analysis threads. Default: the number of cores. */
  threads?: number;
  limits?: Partial<ContentLimits>;
  vectorIndex?: VectorIndexOptions;
  /** Documents per embedding request, and requests in flight. */
  embeddingBatchSize?: number;
  embeddingConcurrency?: number;
  /** Wait this long for another indexer of the same index. Default 0: fail at once. */
  lockWaitMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: IndexEvent) => void;
}

export interface RunOptions {
  /** Only these files (root-relative or absolute); missing ones are removed from the index. */
  paths?: readonly string[];
  since?: string;
  rebuild?: boolean;
  signal?: AbortSignal;
}

/** What an Indexer does when its options leave something out. */
export const INDEXER_DEFAULTS = {
  llm: true,
  /** Fail at once when another indexer holds the index. */
  lockWaitMs: 0,
  /** Documents per embedding request to a server: enough to amortise its round trip. */
  embeddingBatchSize: 32,
  /** Documents per call to an in-process embedder, which has no round trip. */
  inProcessEmbeddingBatchSize: 256,
  /** Embedding requests in flight. */
  embeddingConcurrency: 2,
} as const;

/** A file modified this close to being read may change again within the same mtime tick. */
const RACY_WINDOW_MS = 1_000;
/** Changed files up to which analysis runs on the calling thread (#analyzerFor). */
const IN_PROCESS_ANALYSIS_MAX_FILES = 4;

/** What a dry run reads from and adds to, per file. */
interface DryRunContext {
  store: IndexStore | undefined;
  known: Map<string, FileRow>;
  embedderId: string;
  enricher: Enricher | undefined;
  analyzer: FileAnalyzer;
  tally: DryRunTally;
}

export class Indexer {
  readonly root: string;
  readonly indexDir: string;
  readonly #options: IndexerOptions;
  readonly #limits: ContentLimits;
  readonly #emit: (event: IndexEvent) => void;

  constructor(options: IndexerOptions) {
    this.#options = options;
    this.root = options.root ? resolve(options.root) : findRoot(options.path);
    if (!isInside(this.root, options.path))
      throw new OcvectorError(`${resolve(options.path)} is outside the root ${this.root}`, 'OUTSIDE_ROOT');
    this.indexDir = resolve(options.indexDir ?? defaultIndexDir(this.root));
    this.#limits = { ...DEFAULT_CONTENT_LIMITS, ...options.limits };
    this.#emit = options.onEvent ?? (() => {});
  }

  /**
   * Indexes what the options name: the whole root, or only the given path
   * when it is a file, or git's changes with `since`.
   */
  async run(runOptions: RunOptions = {}): Promise<IndexSummary> {
    return this.#run(await this.#resolveRun(runOptions));
  }

  /** The run's options merged with the indexer's; a file given as `path` is indexed alone. */
  async #resolveRun(runOptions: RunOptions): Promise<RunOptions> {
    const given = resolve(this.#options.path);
    const singleFile = given !== this.root && !runOptions.paths && (await isFile(given));
    const since = runOptions.since ?? this.#options.since;
    const rebuild = runOptions.rebuild ?? this.#options.rebuild;
    return {
      ...runOptions,
      ...(singleFile ? { paths: [given] } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(rebuild !== undefined ? { rebuild } : {}),
    };
  }

  async #run(options: RunOptions): Promise<IndexSummary> {
    const started = performance.now();
    const signal = anySignal(this.#options.signal, options.signal);
    signal?.throwIfAborted();
    prepareDirectory(this.indexDir);
    const lock = await WriteLock.acquire(this.indexDir, {
      waitMs: this.#options.lockWaitMs ?? INDEXER_DEFAULTS.lockWaitMs,
      ...(signal ? { signal } : {}),
    });
    let store: IndexStore | undefined;
    let pool: AnalysisPool | undefined;
    try {
      const opened = (store = IndexStore.open(this.indexDir));
      const { embedder, mode } = await this.#prepareEmbedder(opened, options, signal);
      this.#emit({ type: 'run-start', root: this.root, indexDir: this.indexDir, embedder: embedder.id, mode });

      const rootId = opened.rootId(this.root);
      const known = opened.files(rootId);
      const plan = await this.#plan(options, known, signal);
      const summary = newSummary(this.root, this.indexDir, embedder.id, plan.scanned.length);
      summary.files.skipped += plan.skipped;
      const candidates = plan.scanned.filter((file) => !unchangedByStat(known.get(file.path), file));
      summary.files.unchanged += plan.scanned.length - candidates.length;
      this.#emit({
        type: 'scan-done',
        files: plan.scanned.length,
        candidates: candidates.length,
        deleted: plan.deleted.length,
        excluded: plan.excluded,
      });

      const enricher = this.#enricherFor(opened, signal);
      const analysis = this.#analyzerFor(candidates.length);
      pool = analysis.pool;
      const analyzer = analysis.analyzer;
      const embedding = embedderOnPool(embedder, pool);
      const embedCallsBefore = embedding.calls;
      const queue = new EmbeddingQueue(embedding, {
        ...this.#embeddingBatching(embedder, embedding !== embedder ? pool?.threads : undefined),
        ...(signal ? { signal } : {}),
        lookup: (hash) => opened.getEmbedding(embedder.id, hash),
      });
      const run = new IndexRun({
        store: opened,
        embedder,
        rootId,
        known,
        summary,
        signal,
        queue,
        enricher,
        analyzer,
        emit: this.#emit,
      });

      const stopped = await this.#indexFiles(run, candidates);
      if (stopped === undefined && !signal?.aborted) run.removeDeleted(plan.deleted);
      queue.close();
      summary.embeddings = { computed: queue.computed, cached: queue.cached };
      summary.calls = { embedding: embedding.calls - embedCallsBefore, model: enricher?.calls ?? 0 };
      await this.#finish(run);
      summary.durationMs = performance.now() - started;

      if (stopped !== undefined || signal?.aborted) {
        const reason = stopped ?? signal?.reason;
        if (signal?.aborted) this.#emit({ type: 'run-aborted', reason: String((reason as Error)?.message ?? reason) });
        throw reason;
      }
      // For `--status`: when the index was last brought up to date, and with which models.
      opened.meta.lastRun = {
        finishedAt: new Date().toISOString(),
        mode,
        durationMs: Math.round(summary.durationMs),
        analysisModel: enricher?.model ?? null,
        modelCalls: summary.calls.model,
      };
      if (opened.inTransaction) {
        opened.commitSpan();
        VectorIndex.removeUnusedFiles(opened);
      }
      this.#emit({ type: 'run-done', summary });
      return summary;
    } finally {
      await pool?.close();
      store?.rollbackSpan();
      store?.close();
      lock.release();
    }
  }

  /** The run's embedder, initialised, with the index reset for it or checked against it. */
  async #prepareEmbedder(
    store: IndexStore,
    options: RunOptions,
    signal: AbortSignal | undefined,
  ): Promise<{ embedder: Embedder; mode: LastRun['mode'] }> {
    const recorded = store.embedder;
    const servers = withRecordedHost(this.#servers, recorded?.id, store.meta.embedderHost);
    const embedder = await chooseEmbedder(this.#options.embedder, recorded?.id, servers);
    // A database copied or moved here from another root answers about files elsewhere: this one starts afresh.
    const rebuild = startsAfresh(options, recorded, embedder) || store.builtForElsewhere !== undefined;
    await embedder.init({
      ...(signal ? { signal } : {}),
      ...(recorded?.id === embedder.id && !rebuild ? { dimension: recorded.dimension } : {}),
    });
    // Checked before the index records it: FAISS could never hold vectors of a dimension above its limit.
    const record: EmbedderRecord = { id: embedder.id, dimension: checkDimension(embedder, embedder.dimension) };
    if (rebuild) {
      // One transaction until the run completes: readers keep the old index meanwhile, and a failed rebuild leaves it as it was.
      store.beginSpan();
      store.reset(record);
    } else store.claimEmbedder(record);
    // Where the embedder's server is, for searches that name none.
    if (store.meta.embedderHost !== embedder.host) store.meta.embedderHost = embedder.host;
    return { embedder, mode: rebuild ? 'rebuild' : options.paths ? 'paths' : options.since ? 'since' : 'full' };
  }

  /**
   * Reads, analyses and embeds the files, several at a time, and commits
   * them in batches (those done so far also when the run stops). Returns why
   * it stopped early, if it did.
   */
  async #indexFiles(run: IndexRun, candidates: readonly ScannedFile[]): Promise<unknown> {
    let done = 0;
    const width = filesInFlight(run.analyzer, !run.embedder.inProcess);
    const stopped = await eachConcurrently(
      largestFirst(candidates),
      width,
      async (scanned) => {
        run.add(await this.#processFile(run, scanned));
        this.#emit({ type: 'progress', done: ++done, total: candidates.length });
      },
      run.signal,
    );
    run.flush();
    return stopped;
  }

  /** The summary's totals, and the FAISS file: loaded, brought level and rewritten only when a checkpoint is due. */
  async #finish(run: IndexRun): Promise<void> {
    const { store, summary, embedder } = run;
    summary.generation = store.generation;
    summary.elements.total = store.elementCount;
    const vectorOptions = this.#options.vectorIndex ?? {};
    if (VectorIndex.checkpointDue(store, vectorOptions)) {
      const record: EmbedderRecord = { id: embedder.id, dimension: embedder.dimension };
      const onVectorEvent = (event: VectorIndexEvent) => this.#emit({ type: 'vector-index', event });
      const opened = await VectorIndex.open(store, record, vectorOptions, onVectorEvent);
      const written = await opened.checkpoint(store, record, onVectorEvent);
      written.close();
      summary.index.written = true;
    }
    if (run.wrote) store.pruneEmbeddings();
    summary.index.description = store.meta.indexDescription;
    summary.index.vectors = store.elementCount;
  }

  /**
   * What `run` would do, without doing it: files, elements and model calls
   * per language and directory, and an estimate of the time. Reads and
   * parses the changed files; calls no model and writes nothing.
   */
  async dryRun(runOptions: RunOptions = {}): Promise<DryRunReport> {
    const started = performance.now();
    const run = await this.#resolveRun(runOptions);
    const signal = anySignal(this.#options.signal, run.signal);
    const store = openIfPresent(this.indexDir);
    let pool: AnalysisPool | undefined;
    try {
      const recorded = run.rebuild ? undefined : store?.embedder;
      const servers = withRecordedHost(this.#servers, recorded?.id, run.rebuild ? undefined : store?.meta.embedderHost);
      const embedder = await chooseEmbedder(this.#options.embedder, recorded?.id, servers);
      const rebuild = startsAfresh(run, recorded, embedder);
      // Looked up, not recorded: a dry run writes nothing (the store is open read-only).
      const rootId = store && !rebuild ? [...store.roots()].find(([, path]) => path === this.root)?.[0] : undefined;
      const known = store && rootId !== undefined ? store.files(rootId) : new Map<string, FileRow>();
      const plan = await this.#plan(run, known, signal);
      const candidates = plan.scanned.filter((file) => !unchangedByStat(known.get(file.path), file));
      const enricher = this.#enricherFor(store, signal);
      const tally = new DryRunTally();
      const analysisStarted = performance.now();
      const analysis = this.#analyzerFor(candidates.length);
      pool = analysis.pool;
      const analyzer = analysis.analyzer;
      const context = { store, known, embedderId: embedder.id, enricher, analyzer: analyzer!, tally };
      const stopped = await eachConcurrently(
        candidates,
        filesInFlight(analyzer, false),
        (scanned) => this.#tallyFile(scanned, context),
        signal,
      );
      if (stopped !== undefined) throw stopped;
      const builtin = embedder.inProcess === true;
      const { estimate, embeddingCalls } = estimateRun(tally, performance.now() - analysisStarted, {
        builtin,
        ...this.#embeddingBatching(embedder),
      });
      return {
        root: this.root,
        indexDir: this.indexDir,
        embedder: embedder.id,
        analysisModel: enricher?.model ?? null,
        files: {
          scanned: plan.scanned.length,
          unchanged: plan.scanned.length - candidates.length + tally.sameContent,
          toIndex: candidates.length - tally.sameContent - tally.skipped,
          toRemove: plan.deleted.length,
          excluded: plan.excluded,
          skipped: tally.skipped + plan.skipped,
        },
        elements: tally.elements,
        documentsToEmbed: tally.documentsToEmbed,
        calls: { model: tally.modelCalls, embedding: builtin ? 0 : embeddingCalls },
        byLanguage: tally.byLanguage,
        byDirectory: tally.byDirectory,
        estimate,
        durationMs: performance.now() - started,
      };
    } finally {
      await pool?.close();
      store?.close();
    }
  }

  /** A dry run's look at one file: read, hashed and parsed, never embedded or sent to a model. */
  async #tallyFile(
    scanned: ScannedFile,
    { store, known, embedderId, enricher, analyzer, tally }: DryRunContext,
  ): Promise<void> {
    if (scanned.size > this.#limits.maxBytes) {
      tally.skipped++;
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(scanned.absolutePath);
    } catch {
      tally.skipped++;
      return;
    }
    const row = known.get(scanned.path);
    if (row && row.status !== 'failed' && row.hash === contentHash(bytes)) {
      tally.sameContent++;
      return;
    }
    const analysed = await analyzeWithText(analyzer, scanned.path, bytes).catch(() => undefined);
    const result = analysed?.result;
    if (!result || isSkipped(result)) {
      tally.skipped++;
      return;
    }
    const text = analysed.text ?? redactSecrets(bytes.toString('utf8'));
    const live = new Set(row && store ? store.elementsOfFile(row.id).map((element) => element.documentHash) : []);
    const documents = buildDocuments(result, text.split('\n'));
    const toEmbed = new Set(
      documents.filter((d) => !live.has(d.hash) && !store?.getEmbedding(embedderId, d.hash)).map((d) => d.hash),
    ).size;
    const modelCalls = enricher && result.source === 'ast' ? await enricher.plannedCalls(result, text) : 0;
    tally.add(result, documents.length, toEmbed, modelCalls);
  }

  /**
   * What analyses a run's files: the caller's analyzer; none for no files;
   * this thread for a few (a re-index after an edit), where starting worker
   * threads, each loading tree-sitter and its grammars, costs more than the
   * analysis itself; else a pool of worker threads.
   */
  #analyzerFor(files: number): { analyzer?: FileAnalyzer; pool?: AnalysisPool } {
    if (this.#options.analyzer) return { analyzer: this.#options.analyzer };
    if (files === 0) return {};
    if (files <= IN_PROCESS_ANALYSIS_MAX_FILES) {
      const analyzer = new Analyzer({
        limits: this.#limits,
        onEvent: (event) => this.#emit({ type: 'analysis', event }),
      });
      return {
        analyzer: {
          threads: 1,
          analyzeBytes: (path, bytes) => analyzer.analyzeBytes(path, bytes),
          analyzeWithText: (path, bytes) => analyzer.analyzeWithText(path, bytes),
        },
      };
    }
    const pool = this.#newPool();
    return { analyzer: pool, pool };
  }

  #newPool(): AnalysisPool {
    return new AnalysisPool({
      ...(this.#options.threads ? { threads: this.#options.threads } : {}),
      limits: this.#limits,
      onEvent: (event) => this.#emit({ type: 'analysis', event }),
    });
  }

  /**
   * Documents per embedding request (the built-in embedder has no round
   * trip to amortise), and requests in flight: one per thread when the
   * built-in embedder runs on `poolThreads` worker threads.
   */
  #embeddingBatching(embedder: Embedder, poolThreads?: number): { batchSize: number; concurrency: number } {
    const d = INDEXER_DEFAULTS;
    return {
      batchSize:
        this.#options.embeddingBatchSize ?? (embedder.inProcess ? d.inProcessEmbeddingBatchSize : d.embeddingBatchSize),
      concurrency: this.#options.embeddingConcurrency ?? poolThreads ?? d.embeddingConcurrency,
    };
  }

  /** What to ask of each kind of embedding server. */
  get #servers(): EmbedderServers {
    return { ollama: this.#options.ollama, openai: this.#options.openai };
  }

  /**
   * The enricher given, or the one `llm` describes when analysis by a model
   * is on: its answers are cached in the store when there is one.
   */
  #enricherFor(store: IndexStore | undefined, signal: AbortSignal | undefined): Enricher | undefined {
    if (this.#options.enricher) return this.#options.enricher;
    // One server for embeddings and analysis: the same address, and the same deadline per request.
    const { host, timeoutMs } = this.#options.ollama ?? {};
    return makeEnricher(
      this.#options.llm ?? INDEXER_DEFAULTS.llm,
      {
        ollama: { ...(host ? { host } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
        ...(this.#options.openai ? { openai: this.#options.openai } : {}),
      },
      {
        ...(store ? { cache: store.analysisCache() } : {}),
        ...(signal ? { signal } : {}),
        onEvent: (event) => this.#emit({ type: 'analysis', event }),
      },
    );
  }

  async #plan(
    run: RunOptions,
    known: Map<string, FileRow>,
    signal: AbortSignal | undefined,
  ): Promise<{ scanned: ScannedFile[]; deleted: string[]; excluded: number; skipped: number }> {
    let excluded = 0;
    let skipped = 0;
    const onExcluded = (file: ExcludedFile) => {
      excluded++;
      this.#emit({ type: 'excluded', path: file.path, reason: file.reason });
    };
    // Links, FIFOs, unreadable directories, names that are not UTF-8: skipped, with the real reason.
    const onSkipped = (entry: SkippedEntry) => {
      skipped++;
      this.#emit({ type: 'file-skipped', path: entry.path, reason: entry.reason, detail: entry.detail });
    };
    const scanOptions = { ...(signal ? { signal } : {}), onExcluded, onSkipped };
    if (run.paths || run.since) {
      const paths = [...(run.paths ?? [])];
      let deleted: string[] = [];
      if (run.since) {
        const changes = await gitChangesSince(this.root, run.since);
        paths.push(...changes.changed);
        deleted = changes.deleted;
      }
      const { files } = await scanPaths(this.root, paths, scanOptions);
      // Indexed paths that are not there to index any more: missing, deleted, or now excluded (newly ignored, a secret).
      const present = new Set(files.map((file) => file.path));
      const asked = new Set([...paths.map((path) => toRootRelative(this.root, path)), ...deleted]);
      return {
        scanned: files,
        deleted: [...asked].filter((path) => known.has(path) && !present.has(path)),
        excluded,
        skipped,
      };
    }
    // A subdirectory of the root: scanned with the root's ignore rules, and only it.
    const scope = toRootRelative(this.root, this.#options.path);
    const inScope = (path: string) => scope === '' || path === scope || path.startsWith(`${scope}/`);
    const scanned = (await scanRoot(this.root, scanOptions)).filter((file) => inScope(file.path));
    const seen = new Set(scanned.map((file) => file.path));
    return {
      scanned,
      deleted: [...known.keys()].filter((path) => inScope(path) && !seen.has(path)),
      excluded,
      skipped,
    };
  }

  async #processFile(run: IndexRun, scanned: ScannedFile): Promise<FileOutcome> {
    const row = run.known.get(scanned.path);
    const outcome: FileOutcome = {
      scanned,
      row,
      change: row ? 'changed' : 'added',
      hash: null,
      language: null,
      error: null,
      documents: [],
      vectors: new Map(),
      mtimeMs: scanned.mtimeMs,
    };
    if (scanned.size > this.#limits.maxBytes) {
      return this.#skipped(outcome, {
        path: scanned.path,
        skipped: 'too-large',
        detail: `${scanned.size} bytes, over the limit of ${this.#limits.maxBytes}`,
      });
    }
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(scanned.absolutePath);
    } catch (error) {
      return this.#failed(outcome, `cannot read the file: ${(error as Error).message}`);
    }
    if (Date.now() - scanned.mtimeMs < RACY_WINDOW_MS) outcome.mtimeMs = UNTRUSTED_MTIME; // re-hash next time
    outcome.hash = contentHash(bytes);
    if (row && row.hash === outcome.hash && row.status !== 'failed') {
      outcome.change = 'unchanged';
      return outcome;
    }
    let analysed: AnalysisOutput;
    try {
      analysed = await analyzeWithText(run.analyzer!, scanned.path, bytes);
    } catch (error) {
      return this.#failed(outcome, `analysis failed: ${(error as Error).message}`);
    }
    const { result } = analysed;
    if (isSkipped(result)) return this.#skipped(outcome, result);
    // As analysis saw it: credentials redacted, line breaks kept.
    const text = analysed.text ?? redactSecrets(bytes.toString('utf8'));
    let file: CodeFile = result;
    if (run.enricher && file.source === 'ast') file = await run.enricher.enrich(file, text);
    outcome.language = file.language;
    outcome.documents = buildDocuments(file, text.split('\n'));
    outcome.lineStarts = new LineStarts(bytes);
    // Documents the file already has keep their vectors: only new ones need one.
    const live = run.liveHashes(row);
    outcome.vectors = await run.queue.vectorsFor(outcome.documents.filter((document) => !live.has(document.hash)));
    return outcome;
  }

  #skipped(outcome: FileOutcome, skipped: SkippedFile): FileOutcome {
    outcome.change = 'skipped';
    outcome.error = `${skipped.skipped}: ${skipped.detail}`;
    this.#emit({ type: 'file-skipped', path: skipped.path, reason: skipped.skipped, detail: skipped.detail });
    return outcome;
  }

  #failed(outcome: FileOutcome, error: string): FileOutcome {
    outcome.change = 'failed';
    outcome.error = error;
    this.#emit({ type: 'file-failed', path: outcome.scanned.path, error });
    return outcome;
  }
}

/**
 * A rebuild asked for; an index of an older built-in embedder (re-embedding
 * it costs only CPU, so it is redone rather than refused); or an index that
 * records a dimension FAISS cannot take (written from a misbehaving server
 * by an older version): its vectors can never be searched.
 */
function startsAfresh(run: RunOptions, recorded: EmbedderRecord | undefined, embedder: Embedder): boolean {
  if (run.rebuild === true) return true;
  if (recorded === undefined) return false;
  return isOutdatedBuiltin(recorded.id, embedder) || !isIndexableDimension(recorded.dimension);
}

function newSummary(root: string, indexDir: string, embedder: string, scanned: number): IndexSummary {
  return {
    root,
    indexDir,
    embedder,
    generation: 0,
    files: { scanned, unchanged: 0, added: 0, changed: 0, renamed: 0, deleted: 0, skipped: 0, failed: 0 },
    elements: { total: 0, added: 0, removed: 0, kept: 0 },
    embeddings: { computed: 0, cached: 0 },
    calls: { embedding: 0, model: 0 },
    index: { description: '', vectors: 0, written: false },
    durationMs: 0,
  };
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

function toRootRelative(root: string, path: string): string {
  return relative(root, resolve(root, path)).split('\\').join('/');
}

/**
 * Files in flight: enough to keep the analysis threads busy, and, when
 * vectors come from a model server, enough that analysis runs ahead while
 * earlier files wait for theirs.
 */
function filesInFlight(analyzer: FileAnalyzer | undefined, waitsForServer: boolean): number {
  const analysing = Math.max(4, (analyzer?.threads ?? 1) * 4);
  return waitsForServer ? Math.max(analysing, 64) : analysing;
}

/** The index for a dry run to compare with, when there is one. */
function openIfPresent(indexDir: string): IndexStore | undefined {
  try {
    return IndexStore.open(indexDir, { readonly: true });
  } catch (error) {
    if (!(error instanceof StoreError && error.code === 'NOT_FOUND')) throw error;
    return undefined;
  }
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 0 ? undefined : present.length === 1 ? present[0] : AbortSignal.any(present);
}

/** Same size and mtime as indexed, and not a failure to retry: the file is not even read. */
function unchangedByStat(row: FileRow | undefined, file: ScannedFile): boolean {
  return row !== undefined && row.size === file.size && row.mtimeMs === file.mtimeMs && row.status !== 'failed';
}

/** An analysis and the text it read, from an analyzer that gives both, else the analysis alone. */
function analyzeWithText(analyzer: FileAnalyzer, path: string, bytes: Uint8Array): Promise<AnalysisOutput> {
  if (analyzer.analyzeWithText) return analyzer.analyzeWithText(path, bytes);
  return analyzer.analyzeBytes(path, bytes).then((result) => ({ result }));
}
