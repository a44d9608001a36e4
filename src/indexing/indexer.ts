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
import { llmEnabledByEnvironment } from '../analysis/create.js';
import { OllamaEnricher, type OllamaEnricherOptions } from '../analysis/llm/ollama-enricher.js';
import { AnalysisPool } from '../analysis/pool.js';
import { isSkipped, type AnalysisResult, type CodeFile, type SkippedFile } from '../analysis/types.js';
import { defaultIndexDir, findRoot } from '../files/root.js';
import { gitChangesSince } from '../files/git.js';
import { contentHash } from '../files/hash.js';
import { readRegularFile } from '../files/read.js';
import { redactSecrets } from '../files/redact.js';
import { isInside, scanPaths, scanRoot, type ExcludedFile, type ScannedFile, type SkippedEntry } from '../files/scan.js';
import { prepareDirectory, StoreError } from '../store/database.js';
import { IndexStore, type EmbedderRecord, type FileRow } from '../store/store.js';
import { WriteLock } from '../store/lock.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from '../store/vector-file.js';
import { BuiltinEmbedder } from '../vector/builtin-embedder.js';
import { chooseEmbedder, isOutdatedBuiltin, type EmbedderChoice } from '../vector/choose.js';
import { buildDocuments, type ElementDocument } from '../vector/document.js';
import type { Embedder } from '../vector/embedder.js';
import { DryRunTally, estimateRun, type DryRunReport } from './dry-run.js';
import { EmbeddingQueue } from './embedding-queue.js';
import type { FileChange, IndexEvent, IndexSummary, LastRun } from './events.js';

export interface IndexerOptions {
  /** A file or directory; the root (enclosing git work tree, else this directory) is found from it. */
  path: string;
  /** The root, when not the one found from `path` (several paths indexed under their common root). `path` must lie inside it. */
  root?: string;
  /** Where the database lives. Default `<root>/.ocvector`. */
  indexDir?: string;
  /** Default: the index's own embedder; for a new index Ollama when it answers, else the built-in one. */
  embedder?: EmbedderChoice;
  /** LLM analysis: false (syntax tree only), true, or Ollama options. Default on unless OCVECTOR_LLM=off. */
  llm?: boolean | OllamaEnricherOptions;
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
  /** The deadline of each request to Ollama (analysis and embeddings), reading the answer included. Default 120 s. */
  ollamaTimeoutMs?: number;
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

/** Files written per transaction. */
const FILES_PER_COMMIT = 64;
/** A file modified this close to being read may change again within the same mtime tick. */
const RACY_WINDOW_MS = 1_000;

interface FileOutcome {
  scanned: ScannedFile;
  row: FileRow | undefined;
  change: FileChange | 'unchanged' | 'skipped' | 'failed';
  hash: string | null;
  language: string | null;
  error: string | null;
  documents: ElementDocument[];
  vectors: Map<string, Float32Array>;
  mtimeMs: number;
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
    if (!isInside(this.root, options.path)) throw new Error(`${resolve(options.path)} is outside the root ${this.root}`);
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
    return { ...runOptions, ...(singleFile ? { paths: [given] } : {}), ...(since !== undefined ? { since } : {}), ...(rebuild !== undefined ? { rebuild } : {}) };
  }

  async #run(run: RunOptions): Promise<IndexSummary> {
    const started = performance.now();
    const signal = anySignal(this.#options.signal, run.signal);
    signal?.throwIfAborted();
    prepareDirectory(this.indexDir);
    const lock = await WriteLock.acquire(this.indexDir, { waitMs: this.#options.lockWaitMs ?? 0, ...(signal ? { signal } : {}) });
    let store: IndexStore | undefined;
    let pool: AnalysisPool | undefined;
    try {
      store = IndexStore.open(this.indexDir);
      const recorded = store.embedder;
      const embedder = await chooseEmbedder(this.#options.embedder, recorded?.id, this.#ollamaOptions());
      // A database copied or moved here from another root answers about files elsewhere: this one starts afresh.
      const rebuild = startsAfresh(run, recorded, embedder) || store.builtForElsewhere !== undefined;
      await embedder.init({ ...(signal ? { signal } : {}), ...(recorded?.id === embedder.id && !rebuild ? { dimension: recorded.dimension } : {}) });
      const record: EmbedderRecord = { id: embedder.id, dimension: embedder.dimension };
      if (rebuild) {
        // One transaction until the run completes: readers keep the old index meanwhile, and a failed rebuild leaves it as it was.
        store.beginSpan();
        store.reset(record);
      } else store.claimEmbedder(record);
      const mode = rebuild ? 'rebuild' : run.paths ? 'paths' : run.since ? 'since' : 'full';
      this.#emit({ type: 'run-start', root: this.root, indexDir: this.indexDir, embedder: embedder.id, mode });

      const rootId = store.rootId(this.root);
      const known = store.files(rootId);
      const plan = await this.#plan(run, known, signal);
      const summary = newSummary(this.root, this.indexDir, embedder.id, plan.scanned.length);
      summary.files.skipped += plan.skipped;
      const candidates = plan.scanned.filter((file) => !unchangedByStat(known.get(file.path), file));
      summary.files.unchanged += plan.scanned.length - candidates.length;
      this.#emit({ type: 'scan-done', files: plan.scanned.length, candidates: candidates.length, deleted: plan.deleted.length, excluded: plan.excluded });

      const generation = store.generation + 1;
      let wrote = false;
      const beginWrite = () => {
        if (!wrote) store!.setMeta('generation', generation);
        wrote = true;
      };

      const embedCallsBefore = embedder.calls;
      const queue = new EmbeddingQueue(embedder, {
        ...this.#embeddingBatching(embedder),
        ...(signal ? { signal } : {}),
        lookup: (hash) => store!.getEmbedding(embedder.id, hash),
      });
      const enricher = this.#enricherFor(store, signal);
      pool = candidates.length > 0 ? this.#newPool() : undefined;

      // Files are written in batches, one transaction each.
      let batch: FileOutcome[] = [];
      const commit = () => {
        const outcomes = batch;
        batch = [];
        this.#commit(store!, rootId, generation, embedder, outcomes, summary, beginWrite);
      };

      let done = 0;
      let stopped: unknown;
      const next = { index: 0 };
      const worker = async () => {
        while (next.index < candidates.length && stopped === undefined) {
          if (signal?.aborted) {
            stopped ??= signal.reason;
            return;
          }
          const scanned = candidates[next.index++]!;
          try {
            const row = known.get(scanned.path);
            // Documents the file already has keep their vectors: only new ones need one.
            const live = () => new Set(row ? store!.elementsOfFile(row.id).map((element) => element.documentHash) : []);
            const outcome = await this.#processFile(scanned, row, pool!, enricher, queue, live);
            batch.push(outcome);
            if (batch.length >= FILES_PER_COMMIT) commit();
          } catch (error) {
            stopped ??= error;
            return;
          }
          this.#emit({ type: 'progress', done: ++done, total: candidates.length });
        }
      };
      // Files in flight: enough to keep the analysis threads busy, and, with a
      // model server, enough that analysis runs ahead while earlier files wait for their vectors.
      const analysing = Math.max(4, (pool?.threads ?? 1) * 4);
      const width = embedder instanceof BuiltinEmbedder ? analysing : Math.max(analysing, 64);
      await Promise.all(Array.from({ length: Math.min(width, candidates.length) }, worker));
      commit();

      if (stopped === undefined && !signal?.aborted) {
        this.#removeDeleted(store, rootId, plan.deleted, generation, summary, beginWrite, known);
      }
      queue.close();
      summary.embeddings = { computed: queue.computed, cached: queue.cached };
      summary.calls = { embedding: embedder.calls - embedCallsBefore, model: enricher?.calls ?? 0 };
      summary.generation = store.generation;
      summary.elements.total = store.elementCount;

      // The FAISS file: loaded, brought level and rewritten only when a checkpoint is due.
      const vectorOptions = this.#options.vectorIndex ?? {};
      if (VectorIndex.checkpointDue(store, vectorOptions)) {
        const onVectorEvent = (event: VectorIndexEvent) => this.#emit({ type: 'vector-index', event });
        const opened = await VectorIndex.open(store, record, vectorOptions, onVectorEvent);
        const written = await opened.checkpoint(store, record, onVectorEvent);
        written.close();
        summary.index.written = true;
      }
      if (wrote) store.pruneEmbeddings();
      summary.index.description = store.getMeta('index_description') ?? 'Flat';
      summary.index.vectors = store.elementCount;
      summary.durationMs = performance.now() - started;
      if (stopped === undefined && !signal?.aborted) {
        // For `--status`: when the index was last brought up to date, and with which models.
        const lastRun: LastRun = { finishedAt: new Date().toISOString(), mode, durationMs: Math.round(summary.durationMs), analysisModel: enricher?.model ?? null, modelCalls: summary.calls.model };
        store.setMeta('last_run', JSON.stringify(lastRun));
      }

      if (stopped !== undefined || signal?.aborted) {
        const reason = stopped ?? signal?.reason;
        if (signal?.aborted) this.#emit({ type: 'run-aborted', reason: String((reason as Error)?.message ?? reason) });
        throw reason;
      }
      if (store.inTransaction) {
        store.commitSpan();
        VectorIndex.removeUnusedFiles(store);
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

  /**
   * What `run` would do, without doing it: files, elements and model calls
   * per language and directory, and an estimate of the time. Reads and
   * parses the changed files; calls no model and writes nothing.
   */
  async dryRun(runOptions: RunOptions = {}): Promise<DryRunReport> {
    const started = performance.now();
    const run = await this.#resolveRun(runOptions);
    const signal = anySignal(this.#options.signal, run.signal);
    let store: IndexStore | undefined;
    try {
      store = IndexStore.open(this.indexDir, { readonly: true });
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'NOT_FOUND')) throw error;
    }
    let pool: AnalysisPool | undefined;
    try {
      const recorded = run.rebuild ? undefined : store?.embedder;
      const embedder = await chooseEmbedder(this.#options.embedder, recorded?.id, this.#ollamaOptions());
      const rebuild = startsAfresh(run, recorded, embedder);
      // Looked up, not recorded: a dry run writes nothing (the store is open read-only).
      const rootId = store && !rebuild ? [...store.roots()].find(([, path]) => path === this.root)?.[0] : undefined;
      const known = store && rootId !== undefined ? store.files(rootId) : new Map<string, FileRow>();
      const plan = await this.#plan(run, known, signal);
      const candidates = plan.scanned.filter((file) => !unchangedByStat(known.get(file.path), file));
      const enricher = this.#enricherFor(store, signal);
      const tally = new DryRunTally();
      let sameContent = 0;
      const analysisStarted = performance.now();
      pool = candidates.length > 0 ? this.#newPool() : undefined;
      const next = { index: 0 };
      const worker = async () => {
        while (next.index < candidates.length) {
          signal?.throwIfAborted();
          const scanned = candidates[next.index++]!;
          if (scanned.size > this.#limits.maxBytes) {
            tally.skipped++;
            continue;
          }
          let bytes: Buffer;
          try {
            bytes = await readRegularFile(scanned.absolutePath);
          } catch {
            tally.skipped++;
            continue;
          }
          const row = known.get(scanned.path);
          if (row && row.status !== 'failed' && row.hash === contentHash(bytes)) {
            sameContent++;
            continue;
          }
          const result = await pool!.analyzeBytes(scanned.path, bytes).catch(() => undefined);
          if (!result || isSkipped(result)) {
            tally.skipped++;
            continue;
          }
          const text = bytes.toString('utf8');
          const live = new Set(row && store ? store.elementsOfFile(row.id).map((element) => element.documentHash) : []);
          const documents = buildDocuments(result, text.split('\n'));
          const toEmbed = new Set(documents.filter((d) => !live.has(d.hash) && !store?.getEmbedding(embedder.id, d.hash)).map((d) => d.hash)).size;
          const modelCalls = enricher && result.source === 'ast' ? await enricher.plannedCalls(result, text) : 0;
          tally.add(result, documents.length, toEmbed, modelCalls);
        }
      };
      await Promise.all(Array.from({ length: Math.min(Math.max(4, (pool?.threads ?? 1) * 4), candidates.length) }, worker));
      const builtin = embedder instanceof BuiltinEmbedder;
      const { estimate, embeddingCalls } = estimateRun(tally, performance.now() - analysisStarted, { builtin, ...this.#embeddingBatching(embedder) });
      return {
        root: this.root,
        indexDir: this.indexDir,
        embedder: embedder.id,
        analysisModel: enricher?.model ?? null,
        files: {
          scanned: plan.scanned.length,
          unchanged: plan.scanned.length - candidates.length + sameContent,
          toIndex: candidates.length - sameContent - tally.skipped,
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

  #newPool(): AnalysisPool {
    return new AnalysisPool({ ...(this.#options.threads ? { threads: this.#options.threads } : {}), limits: this.#limits, onEvent: (event) => this.#emit({ type: 'analysis', event }) });
  }

  /** Documents per embedding request (the built-in embedder has no round trip to amortise), and requests in flight. */
  #embeddingBatching(embedder: Embedder): { batchSize: number; concurrency: number } {
    return { batchSize: this.#options.embeddingBatchSize ?? (embedder instanceof BuiltinEmbedder ? 256 : 32), concurrency: this.#options.embeddingConcurrency ?? 2 };
  }

  /** The LLM enricher when analysis by a model is on; its answers are cached in the store when there is one. */
  #ollamaOptions(): { timeoutMs?: number } {
    return this.#options.ollamaTimeoutMs === undefined ? {} : { timeoutMs: this.#options.ollamaTimeoutMs };
  }

  #enricherFor(store: IndexStore | undefined, signal: AbortSignal | undefined): OllamaEnricher | undefined {
    const llm = this.#options.llm ?? llmEnabledByEnvironment();
    if (llm === false) return undefined;
    return new OllamaEnricher({
      ...this.#ollamaOptions(),
      ...(llm === true ? {} : llm),
      ...(store ? { cache: store.analysisCache() } : {}),
      ...(signal ? { signal } : {}),
      onEvent: (event) => this.#emit({ type: 'analysis', event }),
    });
  }

  async #plan(run: RunOptions, known: Map<string, FileRow>, signal: AbortSignal | undefined): Promise<{ scanned: ScannedFile[]; deleted: string[]; excluded: number; skipped: number }> {
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
      return { scanned: files, deleted: [...asked].filter((path) => known.has(path) && !present.has(path)), excluded, skipped };
    }
    // A subdirectory of the root: scanned with the root's ignore rules, and only it.
    const scope = toRootRelative(this.root, this.#options.path);
    const inScope = (path: string) => scope === '' || path === scope || path.startsWith(`${scope}/`);
    const scanned = (await scanRoot(this.root, scanOptions)).filter((file) => inScope(file.path));
    const seen = new Set(scanned.map((file) => file.path));
    return { scanned, deleted: [...known.keys()].filter((path) => inScope(path) && !seen.has(path)), excluded, skipped };
  }

  async #processFile(
    scanned: ScannedFile,
    row: FileRow | undefined,
    pool: AnalysisPool,
    enricher: OllamaEnricher | undefined,
    queue: EmbeddingQueue,
    liveHashes: () => Set<string>,
  ): Promise<FileOutcome> {
    const outcome: FileOutcome = { scanned, row, change: row ? 'changed' : 'added', hash: null, language: null, error: null, documents: [], vectors: new Map(), mtimeMs: scanned.mtimeMs };
    if (scanned.size > this.#limits.maxBytes) {
      return this.#skipped(outcome, { path: scanned.path, skipped: 'too-large', detail: `${scanned.size} bytes, over the limit of ${this.#limits.maxBytes}` });
    }
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(scanned.absolutePath);
    } catch (error) {
      return this.#failed(outcome, `cannot read the file: ${(error as Error).message}`);
    }
    if (Date.now() - scanned.mtimeMs < RACY_WINDOW_MS) outcome.mtimeMs = -1; // re-hash next time
    outcome.hash = contentHash(bytes);
    if (row && row.hash === outcome.hash && row.status !== 'failed') {
      outcome.change = 'unchanged';
      return outcome;
    }
    let result: AnalysisResult;
    try {
      result = await pool.analyzeBytes(scanned.path, bytes);
    } catch (error) {
      return this.#failed(outcome, `analysis failed: ${(error as Error).message}`);
    }
    if (isSkipped(result)) return this.#skipped(outcome, result);
    // As analysis saw it: credentials redacted, line breaks kept.
    const text = redactSecrets(bytes.toString('utf8'));
    let file: CodeFile = result;
    if (enricher && file.source === 'ast') file = await enricher.enrich(file, text);
    outcome.language = file.language;
    outcome.documents = buildDocuments(file, text.split('\n'));
    const live = liveHashes();
    outcome.vectors = await queue.vectorsFor(outcome.documents.filter((document) => !live.has(document.hash)));
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

  #commit(
    store: IndexStore,
    rootId: number,
    generation: number,
    embedder: Embedder,
    outcomes: FileOutcome[],
    summary: IndexSummary,
    beginWrite: () => void,
  ): void {
    if (outcomes.length === 0) return;
    const events: IndexEvent[] = [];
    store.transaction(() => {
      for (const outcome of outcomes) {
        const { scanned, row } = outcome;
        if (outcome.change === 'unchanged') {
          store.touchFile(row!.id, scanned.size, outcome.mtimeMs);
          summary.files.unchanged++;
          events.push({ type: 'file-unchanged', path: scanned.path });
          continue;
        }
        beginWrite();
        const status = outcome.change === 'skipped' ? 'skipped' : outcome.change === 'failed' ? 'failed' : 'indexed';
        // A failed file keeps no hash, so the next run tries it again.
        const update = { path: scanned.path, language: outcome.language, size: scanned.size, mtimeMs: outcome.mtimeMs, hash: status === 'failed' ? null : outcome.hash, status, error: outcome.error } as const;
        const written = store.writeFile(rootId, update, outcome.documents, generation);
        for (const { document } of written.added) {
          // Absent only for a hash the file already had (a second copy of a document): its vector is stored.
          const vector = outcome.vectors.get(document.hash);
          if (vector) store.putEmbedding(embedder.id, document.hash, vector);
        }
        summary.elements.added += written.added.length;
        summary.elements.removed += written.removed.length;
        summary.elements.kept += written.kept;
        if (status === 'skipped') summary.files.skipped++;
        else if (status === 'failed') summary.files.failed++;
        else {
          summary.files[outcome.change as FileChange]++;
          events.push({ type: 'file-indexed', path: scanned.path, change: outcome.change as FileChange, elements: outcome.documents.length, added: written.added.length, removed: written.removed.length, kept: written.kept, embedded: written.added.length });
        }
      }
    });
    for (const event of events) this.#emit(event);
  }

  /** Removes vanished files in one transaction (their vectors leave FAISS at the next checkpoint or open). */
  #removeDeleted(store: IndexStore, rootId: number, deleted: string[], generation: number, summary: IndexSummary, beginWrite: () => void, known: Map<string, FileRow>): void {
    if (deleted.length === 0) return;
    const addedHashes = new Set<string>();
    for (const row of store.files(rootId).values()) if (row.hash && !known.has(row.path)) addedHashes.add(row.hash);
    store.transaction(() => {
      beginWrite();
      for (const path of deleted) {
        const row = known.get(path);
        if (!row) continue;
        const removed = store.deleteFile(row.id, generation);
        // The same content under a new path: a rename, already indexed under its new name.
        if (row.hash && addedHashes.has(row.hash)) {
          summary.files.added--;
          summary.files.renamed++;
        } else summary.files.deleted++;
        summary.elements.removed += removed.length;
        this.#emit({ type: 'file-removed', path, removed: removed.length });
      }
    });
  }
}

/** A rebuild asked for, or an index of an older built-in embedder: re-embedding it costs only CPU, so it is redone rather than refused. */
function startsAfresh(run: RunOptions, recorded: EmbedderRecord | undefined, embedder: Embedder): boolean {
  return run.rebuild === true || (recorded !== undefined && isOutdatedBuiltin(recorded.id, embedder));
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
  return stat(path).then((info) => info.isFile(), () => false);
}

function toRootRelative(root: string, path: string): string {
  return relative(root, resolve(root, path)).split('\\').join('/');
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 0 ? undefined : present.length === 1 ? present[0] : AbortSignal.any(present);
}

/** Same size and mtime as indexed, and not a failure to retry: the file is not even read. */
function unchangedByStat(row: FileRow | undefined, file: ScannedFile): boolean {
  return row !== undefined && row.size === file.size && row.mtimeMs === file.mtimeMs && row.status !== 'failed';
}
