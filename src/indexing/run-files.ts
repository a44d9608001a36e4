/**
 * What a run does the same way whatever store it writes to: the plan of files against what the
 * index holds, the summary, and the run object (index-run.ts) that takes the changed files
 * through the stages (file-stages.ts) several at a time and writes them batch by batch, then
 * removes the vanished ones.
 */
import type { ScannedFile } from '../files/scan.js';
import type { StoreRun } from '../store/store.js';
import type { Embedder } from '../vector/embedder.js';
import { EmbeddingQueue } from './embedding-queue.js';
import type { IndexSummary } from './events.js';
import { indexFile } from './file-stages.js';
import { eachConcurrently, IndexRun, largestFirst } from './index-run.js';
import { filesInFlight, type IndexerSetup } from './indexer-setup.js';
import type { RunOptions } from './options.js';
import { changedByStat } from './plan.js';
import { embedderOnPool } from './pooled-embedder.js';

/** The run, its summary so far, and why it stopped early, if it did. */
export interface ChangesIndexed {
  run: IndexRun;
  stopped: unknown;
}

/**
 * Plans the run against what the index holds, then reads, analyses, embeds
 * and writes the changed files and removes the vanished ones (unless the run
 * stopped). The analysis threads are closed before it returns.
 */
export async function indexChanges(
  setup: IndexerSetup,
  options: RunOptions,
  signal: AbortSignal | undefined,
  embedder: Embedder,
  store: StoreRun,
): Promise<ChangesIndexed> {
  const known = await store.files();
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

  const enricher = setup.enricherFor(store.analysisCache(), signal);
  const analysis = setup.analyzerFor(candidates.length);
  try {
    const embedding = embedderOnPool(embedder, analysis.pool);
    const embedCallsBefore = embedding.calls;
    const queue = new EmbeddingQueue(embedding, {
      ...setup.embeddingBatching(embedder, embedding !== embedder ? analysis.pool?.threads : undefined),
      ...(signal ? { signal } : {}),
      lookup: (hashes) => store.embeddings(hashes),
    });
    const run = new IndexRun({
      store,
      embedder,
      known,
      summary,
      signal,
      queue,
      enricher,
      analyzer: analysis.analyzer,
      maxBytes: setup.limits.maxBytes,
      emit: setup.emit,
    });
    const stopped = await indexFiles(run, candidates);
    if (stopped === undefined && !signal?.aborted) await run.removeDeleted(plan.deleted);
    queue.close();
    summary.embeddings = { computed: queue.computed, cached: queue.cached };
    summary.calls = { embedding: embedding.calls - embedCallsBefore, model: enricher?.calls ?? 0 };
    return { run, stopped };
  } finally {
    await analysis.pool?.close();
  }
}

/**
 * Takes the files through the stages, several at a time, and writes
 * them in batches (those done so far also when the run stops). Returns why
 * it stopped early, if it did.
 */
async function indexFiles(run: IndexRun, candidates: readonly ScannedFile[]): Promise<unknown> {
  let done = 0;
  const width = filesInFlight(run.analyzer, !run.embedder.inProcess);
  const stopped = await eachConcurrently(
    largestFirst(candidates),
    width,
    async (scanned) => {
      await run.write(await indexFile(run, scanned));
      run.emit({ type: 'progress', done: ++done, total: candidates.length, path: scanned.path });
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
