/**
 * What a run does the same way whatever store it writes to: the plan of
 * files against what the index holds, the summary, and the loop that reads,
 * analyses and embeds the changed files several at a time and hands their
 * outcomes to the run (index-run.ts) batch by batch, then removes the
 * vanished ones.
 */
import type { AnalysisCache } from '../analysis/llm/cache.js';
import type { ScannedFile } from '../files/scan.js';
import type { FileRow } from '../store/rows.js';
import type { RunWriter } from '../store/writes.js';
import type { Embedder } from '../vector/embedder.js';
import { EmbeddingQueue, type EmbeddingQueueOptions } from './embedding-queue.js';
import type { IndexSummary } from './events.js';
import { eachConcurrently, IndexRun, largestFirst } from './index-run.js';
import type { RunOptions } from './options.js';
import { changedByStat } from './plan.js';
import { embedderOnPool } from './pooled-embedder.js';
import { processFile } from './process-file.js';
import { filesInFlight, type RunSetup } from './run-setup.js';

/** What a store gives the shared part of a run. */
export interface RunStore {
  /** Where the index is, for the summary (a directory, or a database). */
  location: string;
  /** The repository's files as the index holds them before the run. */
  known: Map<string, FileRow>;
  writer: RunWriter;
  /** Vectors the store holds already, by document hash. */
  lookup: EmbeddingQueueOptions['lookup'];
  /** Where the analysis model's answers are cached, when the store keeps them. */
  analysisCache?: AnalysisCache | undefined;
}

/** The shared part's outcome: the summary so far, the run, and why it stopped early, if it did. */
export interface ChangesIndexed {
  summary: IndexSummary;
  run: IndexRun;
  stopped: unknown;
  /** The analysis model asked for, or null when analysis by a model was off. */
  analysisModel: string | null;
}

/**
 * Plans the run against what the index holds, then reads, analyses, embeds
 * and writes the changed files and removes the vanished ones (unless the run
 * stopped). The analysis threads are closed before it returns.
 */
export async function indexChanges(
  setup: RunSetup,
  options: RunOptions,
  signal: AbortSignal | undefined,
  embedder: Embedder,
  store: RunStore,
): Promise<ChangesIndexed> {
  const { known } = store;
  const plan = await setup.plan(options, known, signal);
  const summary = newSummary(setup.root, store.location, embedder.id, plan.scanned.length);
  summary.files.skipped += plan.skipped;
  const candidates = changedByStat(plan, known);
  summary.files.unchanged += plan.scanned.length - candidates.length;
  setup.emit({
    type: 'scan-done',
    files: plan.scanned.length,
    candidates: candidates.length,
    deleted: plan.deleted.length,
    excluded: plan.excluded,
  });

  const enricher = setup.enricherFor(store.analysisCache, signal);
  const analysis = setup.analyzerFor(candidates.length);
  try {
    const embedding = embedderOnPool(embedder, analysis.pool);
    const embedCallsBefore = embedding.calls;
    const queue = new EmbeddingQueue(embedding, {
      ...setup.embeddingBatching(embedder, embedding !== embedder ? analysis.pool?.threads : undefined),
      ...(signal ? { signal } : {}),
      lookup: store.lookup,
    });
    const run = new IndexRun({
      writer: store.writer,
      embedder,
      known,
      summary,
      signal,
      queue,
      enricher,
      analyzer: analysis.analyzer,
      emit: setup.emit,
    });
    const stopped = await indexFiles(setup, run, candidates);
    if (stopped === undefined && !signal?.aborted) await run.removeDeleted(plan.deleted);
    queue.close();
    summary.embeddings = { computed: queue.computed, cached: queue.cached };
    summary.calls = { embedding: embedding.calls - embedCallsBefore, model: enricher?.calls ?? 0 };
    return { summary, run, stopped, analysisModel: enricher?.model ?? null };
  } finally {
    await analysis.pool?.close();
  }
}

/**
 * Reads, analyses and embeds the files, several at a time, and commits
 * them in batches (those done so far also when the run stops). Returns why
 * it stopped early, if it did.
 */
async function indexFiles(setup: RunSetup, run: IndexRun, candidates: readonly ScannedFile[]): Promise<unknown> {
  let done = 0;
  const width = filesInFlight(run.analyzer, !run.embedder.inProcess);
  const stopped = await eachConcurrently(
    largestFirst(candidates),
    width,
    async (scanned) => {
      await run.add(await processFile(run, scanned, setup.limits.maxBytes, setup.emit));
      setup.emit({ type: 'progress', done: ++done, total: candidates.length, path: scanned.path });
    },
    run.signal,
  );
  try {
    await run.flush();
  } catch (error) {
    // A run that stopped on an error reports that error, not what writing after it met.
    if (stopped === undefined) throw error;
  }
  return stopped;
}

/** A run's summary before it starts. */
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
