/**
 * What an indexing run would do, before doing it: files, elements, and model
 * calls per language and directory, and an estimate of the time. The dry run
 * plans the files as a run does (indexer-setup.ts), and takes the ones that
 * changed through the run's read stage and builds their documents as it does
 * (file-stages.ts): that is how elements are counted. It calls no model and
 * writes nothing, not even the index directory.
 */
import type { Enricher } from '../analysis/analyzer.js';
import type { CodeFile } from '../analysis/types.js';
import type { ScannedFile } from '../files/scan.js';
import { openStore } from '../store/open.js';
import type { FileRow } from '../store/rows.js';
import type { IndexPreview } from '../store/store.js';
import { eachConcurrently } from './index-run.js';
import type { RunOptions } from './options.js';
import { changedByStat } from './plan.js';
import type { AnalysisPool, FileAnalyzer } from './pool.js';
import { newFileRecord } from './file-record.js';
import { addDocuments, readFile } from './file-stages.js';
import { filesInFlight, startsAfresh, type IndexerSetup } from './indexer-setup.js';

/** Assumptions behind the estimate, stated in the report. */
export const DRY_RUN_ASSUMPTIONS = {
  /** One structured-output answer from a local 7B coder model for one file part. */
  modelCallMs: 4_000,
  /** One request of 32 documents to a local embedding model. */
  embeddingBatchMs: 400,
  /** The built-in embedder on one core (bench/indexing). */
  builtinDocsPerSecond: 17_000,
  /** Rows, FTS5 and the embedding cache (bench/indexing). */
  sqliteDocsPerSecond: 20_000,
} as const;

export interface DryRunGroup {
  files: number;
  elements: number;
  modelCalls: number;
}

export interface DryRunReport {
  root: string;
  indexDir: string;
  embedder: string;
  analysisModel: string | null;
  files: { scanned: number; unchanged: number; toIndex: number; toRemove: number; excluded: number; skipped: number };
  /** Elements in the files to index, and the documents among them that need a new vector. */
  elements: number;
  documentsToEmbed: number;
  calls: { model: number; embedding: number };
  byLanguage: Record<string, DryRunGroup>;
  byDirectory: Record<string, DryRunGroup>;
  estimate: {
    analysisMs: number;
    embeddingMs: number;
    modelMs: number;
    writeMs: number;
    totalMs: number;
    assumptions: string;
  };
  durationMs: number;
}

/**
 * What `run` would do with these options, without doing it: files, elements
 * and model calls per language and directory, and an estimate of the time.
 */
export async function dryRun(setup: IndexerSetup, run: RunOptions): Promise<DryRunReport> {
  const started = performance.now();
  const signal = setup.signalFor(run);
  const store = (await openStore(setup.options.store, { indexDir: setup.indexDir })).preview();
  let pool: AnalysisPool | undefined;
  try {
    const recorded = run.rebuild ? undefined : store?.embedder;
    const embedder = await setup.chooseEmbedder(recorded?.id);
    const rebuild = startsAfresh(run, recorded, embedder);
    // Looked up, not recorded: a dry run writes nothing (the store is open read-only).
    const { repo } = setup.options;
    const rootId = store && !rebuild ? store.repositoryId(setup.root, repo) : undefined;
    const known = store && rootId !== undefined ? store.files(rootId) : new Map<string, FileRow>();
    const plan = await setup.plan(run, known, signal);
    const candidates = changedByStat(plan, known);
    const enricher = setup.enricherFor(store?.analysisCache(), signal);
    const tally = new DryRunTally();
    const analysisStarted = performance.now();
    const analysis = setup.analyzerFor(candidates.length);
    pool = analysis.pool;
    const analyzer = analysis.analyzer;
    const context: DryRunContext = {
      store,
      known,
      embedderId: embedder.id,
      enricher,
      analyzer: analyzer!,
      maxBytes: setup.limits.maxBytes,
      tally,
    };
    const stopped = await eachConcurrently(
      candidates,
      filesInFlight(analyzer, false),
      (scanned) => tallyFile(scanned, context),
      signal,
    );
    if (stopped !== undefined) throw stopped;
    const builtin = embedder.inProcess === true;
    const { estimate, embeddingCalls } = estimateRun(tally, performance.now() - analysisStarted, {
      builtin,
      ...setup.embeddingBatching(embedder),
    });
    return {
      root: setup.root,
      indexDir: setup.indexDir,
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

/** What a dry run reads from and adds to, per file. */
interface DryRunContext {
  store: IndexPreview | undefined;
  known: Map<string, FileRow>;
  embedderId: string;
  enricher: Enricher | undefined;
  analyzer: FileAnalyzer;
  maxBytes: number;
  tally: DryRunTally;
}

/**
 * A dry run's look at one file: read, hashed and parsed as a run would,
 * never embedded or sent to a model. What a run would record as failed, a
 * dry run counts as skipped: either way the file adds no element.
 */
async function tallyFile(
  scanned: ScannedFile,
  { store, known, embedderId, enricher, analyzer, maxBytes, tally }: DryRunContext,
): Promise<void> {
  const record = newFileRecord(scanned, known.get(scanned.path));
  await readFile(record, analyzer, maxBytes);
  if (record.change === 'unchanged') {
    tally.sameContent++;
    return;
  }
  const { row, code, text } = record;
  if (!code || text === undefined) {
    tally.skipped++;
    return;
  }
  const live = new Set(row && store ? store.elementHashes(row.id) : []);
  addDocuments(record);
  const { documents } = record;
  const toEmbed = new Set(
    documents.filter((d) => !live.has(d.hash) && !store?.hasEmbedding(embedderId, d.hash)).map((d) => d.hash),
  ).size;
  const modelCalls = enricher && code.source === 'ast' ? await enricher.plannedCalls(code, text) : 0;
  tally.add(code, documents.length, toEmbed, modelCalls);
}

/** Accumulates per-file counts into the report's groups. */
export class DryRunTally {
  elements = 0;
  documentsToEmbed = 0;
  modelCalls = 0;
  skipped = 0;
  /** Files read and found equal to what is indexed. */
  sameContent = 0;
  readonly byLanguage: Record<string, DryRunGroup> = {};
  readonly byDirectory: Record<string, DryRunGroup> = {};

  /** `elements`: the file's documents (its elements and the chunks of code outside them), as the run will store them. */
  add(file: CodeFile, elements: number, documentsToEmbed: number, modelCalls: number): void {
    this.elements += elements;
    this.documentsToEmbed += documentsToEmbed;
    this.modelCalls += modelCalls;
    for (const [groups, key] of [
      [this.byLanguage, file.language],
      [this.byDirectory, topDirectory(file.path)],
    ] as const) {
      const group = (groups[key] ??= { files: 0, elements: 0, modelCalls: 0 });
      group.files++;
      group.elements += elements;
      group.modelCalls += modelCalls;
    }
  }
}

/** The time a run would take: the analysis as measured now, the rest from the stated rates. */
function estimateRun(
  tally: DryRunTally,
  analysisMs: number,
  embedder: { builtin: boolean; batchSize: number; concurrency: number },
): { estimate: DryRunReport['estimate']; embeddingCalls: number } {
  const a = DRY_RUN_ASSUMPTIONS;
  const embeddingCalls = Math.ceil(tally.documentsToEmbed / embedder.batchSize);
  const embeddingMs = embedder.builtin
    ? (tally.documentsToEmbed / a.builtinDocsPerSecond) * 1000
    : (embeddingCalls * a.embeddingBatchMs) / embedder.concurrency;
  const modelMs = tally.modelCalls * a.modelCallMs;
  const writeMs = (tally.documentsToEmbed / a.sqliteDocsPerSecond) * 1000;
  const embedding = embedder.builtin
    ? `built-in embedder at ${a.builtinDocsPerSecond} documents/s`
    : `${a.embeddingBatchMs} ms per embedding request of ${embedder.batchSize}, ${embedder.concurrency} in flight`;
  const assumptions = `analysis as measured now; ${embedding}${tally.modelCalls ? `; ${a.modelCallMs / 1000} s per model call` : ''}`;
  // Model calls and embedding overlap analysis in a real run; the slowest stage sets the pace.
  const totalMs = Math.max(analysisMs, modelMs, embeddingMs) + writeMs;
  return {
    estimate: {
      analysisMs: Math.round(analysisMs),
      embeddingMs: Math.round(embeddingMs),
      modelMs,
      writeMs: Math.round(writeMs),
      totalMs: Math.round(totalMs),
      assumptions,
    },
    embeddingCalls,
  };
}

/** A file's directory, two levels deep at most (`src/store`), `.` at the root. */
function topDirectory(path: string): string {
  const parts = path.split('/').slice(0, -1);
  return parts.length === 0 ? '.' : parts.slice(0, 2).join('/');
}
