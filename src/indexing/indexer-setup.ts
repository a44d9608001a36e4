/**
 * What a run and a dry run set up alike from the indexer's options: the
 * root and index they work on, the embedder, the enricher, what analyses
 * the files, how embedding requests are batched, and the plan of files.
 * One place, so that a dry run predicts the run it stands for. Made once per
 * Indexer; a run asks it for its parts as it starts (run-files.ts), and its
 * stages then read the run object alone (index-run.ts).
 */
import { Analyzer, type Enricher } from '../analysis/analyzer.js';
import type { ContentLimits } from '../analysis/content.js';
import { makeEnricher } from '../analysis/llm/choose-enricher.js';
import type { AnalysisCache } from '../analysis/llm/cache.js';
import type { EmbedderRecord, FileRow } from '../store/rows.js';
import { embedderOptionsOf } from '../vector/backends.js';
import { chooseEmbedder, isOutdatedIndex } from '../vector/choose.js';
import { isIndexableDimension } from '../vector/check.js';
import type { Embedder } from '../vector/embedder.js';
import type { IndexEvent } from './events.js';
import { INDEXER_DEFAULTS, type IndexerOptions, type RunOptions } from './options.js';
import { planRun, type FilePlan } from './plan.js';
import { AnalysisPool, type FileAnalyzer } from './pool.js';

/** Changed files up to which analysis runs on the calling thread (analyzerFor). */
const IN_PROCESS_ANALYSIS_MAX_FILES = 4;

export class IndexerSetup {
  readonly root: string;
  readonly indexDir: string;
  readonly options: IndexerOptions;
  readonly limits: ContentLimits;
  readonly emit: (event: IndexEvent) => void;
  /** Analysis threads started before the run knew its files (startAnalysisEarly), for analyzerFor to take. */
  #early: AnalysisPool | undefined;

  constructor(parts: {
    root: string;
    indexDir: string;
    options: IndexerOptions;
    limits: ContentLimits;
    emit: (event: IndexEvent) => void;
  }) {
    this.root = parts.root;
    this.indexDir = parts.indexDir;
    this.options = parts.options;
    this.limits = parts.limits;
    this.emit = parts.emit;
  }

  /** Aborts when either the indexer's signal or the run's does. */
  signalFor(run: RunOptions): AbortSignal | undefined {
    return anySignal(this.options.signal, run.signal);
  }

  /**
   * The embedder asked for, else the one the index recorded, on the server
   * the options name: never on one the index recorded, which may have come
   * with a clone (an OpenAI-compatible model with no base URL given is
   * refused, EmbedderError NOT_CONFIGURED, before any file is read).
   */
  chooseEmbedder(recordedId: string | undefined): Promise<Embedder> {
    return chooseEmbedder(this.options.embedder, recordedId, embedderOptionsOf(this.options));
  }

  /** The files a run looks at, those it removes, and those it leaves out. */
  plan(run: RunOptions, known: Map<string, FileRow>, signal: AbortSignal | undefined): Promise<FilePlan> {
    return planRun(
      { root: this.root, scope: this.options.path, emit: this.emit, ...(signal ? { signal } : {}) },
      run,
      known,
    );
  }

  /**
   * What analyses a run's files: the caller's analyzer; none for no files;
   * this thread for a few (a re-index after an edit), where starting worker
   * threads, each loading tree-sitter and its grammars, costs more than the
   * analysis itself; else a pool of worker threads.
   */
  analyzerFor(files: number): { analyzer?: FileAnalyzer; pool?: AnalysisPool } {
    const early = this.#early;
    this.#early = undefined;
    if (this.options.analyzer) return { analyzer: this.options.analyzer };
    if (files === 0) {
      void early?.close();
      return {};
    }
    // Threads started already are used, however few the files: their start is paid.
    if (early) return { analyzer: early, pool: early };
    if (files <= IN_PROCESS_ANALYSIS_MAX_FILES) {
      const analyzer = new Analyzer({
        limits: this.limits,
        onEvent: (event) => this.emit({ type: 'analysis', event }),
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

  /**
   * Starts the analysis threads now, for a run that will need them (a first index): each loads
   * the analysis modules and tree-sitter while this thread opens the index and lists the files,
   * where it would start only once the plan is made (the load's cost: docs/performance.md, "The
   * figures behind the constants"). analyzerFor takes them; closeEarlyAnalysis closes them if it never does.
   */
  startAnalysisEarly(): void {
    if (this.options.analyzer || this.#early) return;
    this.#early = this.#newPool();
  }

  /** Closes threads started early that no analyzerFor took (a run that failed before its plan). */
  async closeEarlyAnalysis(): Promise<void> {
    const early = this.#early;
    this.#early = undefined;
    await early?.close();
  }

  #newPool(): AnalysisPool {
    return new AnalysisPool({
      ...(this.options.threads ? { threads: this.options.threads } : {}),
      limits: this.limits,
      onEvent: (event) => this.emit({ type: 'analysis', event }),
    });
  }

  /**
   * The enricher given, or the one `llm` describes when analysis by a model
   * is on: its answers are cached in the store when there is one.
   */
  enricherFor(cache: AnalysisCache | undefined, signal: AbortSignal | undefined): Enricher | undefined {
    if (this.options.enricher) return this.options.enricher;
    // One server for embeddings and analysis: the same address, and the same deadline per request.
    const { ollama, openai } = embedderOptionsOf(this.options);
    const { host, timeoutMs } = ollama ?? {};
    return makeEnricher(
      this.options.llm ?? INDEXER_DEFAULTS.llm,
      {
        ollama: { ...(host ? { host } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
        ...(openai ? { openai } : {}),
      },
      {
        ...(cache ? { cache } : {}),
        ...(signal ? { signal } : {}),
        onEvent: (event) => this.emit({ type: 'analysis', event }),
      },
    );
  }

  /**
   * Documents per embedding request (an in-process embedder has no round
   * trip to amortise), and requests in flight: one per thread when the
   * embedder runs on `poolThreads` worker threads.
   */
  embeddingBatching(embedder: Embedder, poolThreads?: number): { batchSize: number; concurrency: number } {
    const d = INDEXER_DEFAULTS;
    return {
      batchSize:
        this.options.embeddingBatchSize ?? (embedder.inProcess ? d.inProcessEmbeddingBatchSize : d.embeddingBatchSize),
      concurrency: this.options.embeddingConcurrency ?? poolThreads ?? d.embeddingConcurrency,
    };
  }
}

/**
 * A rebuild asked for; an index of an older version of its backend (the
 * built-in embedder: re-embedding it costs only CPU, so it is redone rather
 * than refused); or an index that
 * records a dimension FAISS cannot take (written from a misbehaving server
 * by an older version): its vectors can never be searched.
 */
export function startsAfresh(run: RunOptions, recorded: EmbedderRecord | undefined, embedder: Embedder): boolean {
  if (run.rebuild === true) return true;
  if (recorded === undefined) return false;
  return isOutdatedIndex(recorded.id, embedder) || !isIndexableDimension(recorded.dimension);
}

/**
 * Files in flight: enough to keep the analysis threads busy while the
 * indexer's thread builds documents and commits batches (64 files), and,
 * when vectors come from a model server, enough that analysis runs ahead
 * while earlier files wait for theirs (measured: docs/performance.md, "The
 * figures behind the constants"); the bound keeps the largest files, which
 * go first, from all being in memory at once on a machine of many cores.
 */
export function filesInFlight(analyzer: FileAnalyzer | undefined, waitsForServer: boolean): number {
  const analysing = Math.min(64, Math.max(16, (analyzer?.threads ?? 1) * 16));
  return waitsForServer ? Math.max(analysing, 64) : analysing;
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 0 ? undefined : present.length === 1 ? present[0] : AbortSignal.any(present);
}
