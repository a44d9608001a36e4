/**
 * A real run: brings the index up to date with the files the plan names, in whichever store
 * holds it (the store's StoreRun: ../store/store.ts). It claims the store's writer (the
 * embedded index's lock, a shared repository's lease), chooses and checks the embedder, has the
 * changed files read, analysed and embedded several at a time and written in batches
 * (run-files.ts, file-stages.ts, index-run.ts), the vanished ones removed, and commits, or
 * leaves the store as the store keeps a run that did not finish.
 *
 * Policy on failure: a file that cannot be read or analysed is recorded as
 * failed and the run goes on; an embedder that fails stops the run (after
 * committing the files already done, where the store commits batch by batch), because
 * vectors of another embedder cannot stand in for its own.
 */
import { gitHead } from '../files/git.js';
import { holdsAtLeast } from '../files/probe.js';
import { openStore } from '../store/open.js';
import type { EmbedderRecord, LastRun } from '../store/rows.js';
import type { Store, StoreRun } from '../store/store.js';
import { checkDimension } from '../vector/check.js';
import type { Embedder } from '../vector/embedder.js';
import type { IndexSummary } from './events.js';
import { indexChanges } from './run-files.js';
import { INDEXER_DEFAULTS, type RunOptions } from './options.js';
import { startsAfresh, type IndexerSetup } from './indexer-setup.js';
import { seedFromMainWorktree } from './seed.js';

/**
 * Files from which a first index starts its analysis threads before it lists them: a few are
 * analysed on the calling thread (indexer-setup.ts), and for a handful more the threads' start
 * costs more than it saves (docs/performance.md, "The figures behind the constants").
 */
const EARLY_ANALYSIS_MIN_FILES = 64;

export async function updateIndex(setup: IndexerSetup, options: RunOptions): Promise<IndexSummary> {
  const started = performance.now();
  const signal = setup.signalFor(options);
  signal?.throwIfAborted();
  const store = await openStore(setup.options.store, {
    indexDir: setup.indexDir,
    vectorIndex: setup.options.vectorIndex,
    onEvent: (event) => setup.emit({ type: 'vector-index', event }),
  });
  // A first index of many files: its analysis threads start while the index is made and the files listed.
  if (store.startsCold() && holdsAtLeast(setup.options.path, EARLY_ANALYSIS_MIN_FILES)) setup.startAnalysisEarly();
  try {
    await seedFromMainWorktree(setup, store, options);
    return await indexInStore(setup, store, options, started, signal);
  } finally {
    await setup.closeEarlyAnalysis();
  }
}

async function indexInStore(
  setup: IndexerSetup,
  store: Store,
  options: RunOptions,
  started: number,
  signal: AbortSignal | undefined,
): Promise<IndexSummary> {
  const storeRun = await store.beginRun({
    root: setup.root,
    repo: setup.options.repo,
    waitMs: setup.options.lockWaitMs ?? INDEXER_DEFAULTS.lockWaitMs,
    signal,
  });
  try {
    const { embedder, mode } = await prepareEmbedder(setup, storeRun, options, signal);
    setup.emit({ type: 'run-start', root: setup.root, indexDir: storeRun.location, embedder: embedder.id, mode });
    await storeRun.startWriting();
    const { run, stopped } = await indexChanges(setup, options, signal, embedder, storeRun);
    const { summary } = run;
    if (stopped !== undefined || signal?.aborted) {
      await storeRun.abandon(run.wrote);
      const reason = stopped ?? signal?.reason;
      if (signal?.aborted) setup.emit({ type: 'run-aborted', reason: String((reason as Error)?.message ?? reason) });
      throw reason;
    }
    const totals = await storeRun.finish(run.wrote);
    summary.elements.total = totals.elements;
    summary.index = totals.index;
    summary.durationMs = performance.now() - started;
    // For `--status`: when the index and this repository were last brought up to date, and with which models.
    const lastRun: LastRun = {
      finishedAt: new Date().toISOString(),
      mode,
      durationMs: Math.round(summary.durationMs),
      analysisModel: run.enricher?.model ?? null,
      modelCalls: summary.calls.model,
    };
    summary.generation = await storeRun.commit({ commit: await gitHead(setup.root), at: Date.now(), lastRun });
    setup.emit({ type: 'run-done', summary });
    return summary;
  } finally {
    await storeRun.close();
  }
}

/**
 * The run's embedder, initialised, with the repository started afresh for it or checked
 * against the store's. A rebuild among other repositories keeps the store's embedder: one of
 * another id or dimension is refused, since their vectors could no longer be searched.
 */
async function prepareEmbedder(
  setup: IndexerSetup,
  storeRun: StoreRun,
  options: RunOptions,
  signal: AbortSignal | undefined,
): Promise<{ embedder: Embedder; mode: LastRun['mode'] }> {
  const recorded = storeRun.embedder;
  const embedder = await setup.chooseEmbedder(recorded?.id);
  const rebuild = startsAfresh(options, recorded, embedder);
  const others = rebuild && recorded ? await storeRun.otherRepositories() : [];
  // Another embedder is refused before it is started (a model server may be slow to answer).
  if (recorded && others.length > 0 && recorded.id !== embedder.id)
    throw storeRun.rebuildRefused(others, recorded, { id: embedder.id, dimension: embedder.dimension });
  await embedder.init({
    ...(signal ? { signal } : {}),
    ...(recorded?.id === embedder.id && !rebuild ? { dimension: recorded.dimension } : {}),
  });
  // Checked before the store records it: no store could hold vectors of a dimension above its limit.
  const record: EmbedderRecord = { id: embedder.id, dimension: checkDimension(embedder, embedder.dimension) };
  if (recorded && others.length > 0 && recorded.dimension !== record.dimension)
    throw storeRun.rebuildRefused(others, recorded, record);
  await storeRun.claimEmbedder(record, embedder.host, rebuild);
  return { embedder, mode: rebuild ? 'rebuild' : options.paths ? 'paths' : options.since ? 'since' : 'full' };
}
