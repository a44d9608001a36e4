/**
 * A real run into the embedded index: brings it up to date with the files
 * the plan names. It holds the write lock, chooses and checks the embedder,
 * has the changed files read, analysed and embedded several at a time and
 * committed in batches of one transaction each (run-files.ts, index-run.ts,
 * embedded-writer.ts), the vanished ones removed, and checkpoints the FAISS
 * file when one is due. (update-postgres.ts is the same run into the shared
 * store.)
 *
 * Policy on failure: a file that cannot be read or analysed is recorded as
 * failed and the run goes on; an embedder that fails stops the run (after
 * committing the files already done), because vectors of another embedder
 * cannot stand in for its own.
 */
import { gitHead } from '../files/git.js';
import { prepareDirectory, StoreError } from '../store/embedded/database.js';
import type { Repository } from '../store/rows.js';
import { defaultRepositoryName } from '../store/repository-name.js';
import { WriteLock } from '../store/embedded/lock.js';
import type { LastRun } from '../store/rows.js';
import { IndexStore } from '../store/embedded/index-store.js';
import type { EmbedderRecord } from '../store/rows.js';
import { VectorIndex, type VectorIndexEvent } from '../store/embedded/vector-file.js';
import { EmbeddedRunWriter } from '../store/embedded/run-writer.js';
import { checkDimension } from '../vector/check.js';
import type { Embedder } from '../vector/embedder.js';
import type { IndexSummary } from './events.js';
import type { IndexRun } from './index-run.js';
import { indexChanges } from './run-files.js';
import { INDEXER_DEFAULTS, type RunOptions } from './options.js';
import { startsAfresh, type RunSetup } from './run-setup.js';

export async function updateIndex(setup: RunSetup, options: RunOptions): Promise<IndexSummary> {
  const started = performance.now();
  const signal = setup.signalFor(options);
  signal?.throwIfAborted();
  prepareDirectory(setup.indexDir);
  const lock = await WriteLock.acquire(setup.indexDir, {
    waitMs: setup.options.lockWaitMs ?? INDEXER_DEFAULTS.lockWaitMs,
    ...(signal ? { signal } : {}),
  });
  let store: IndexStore | undefined;
  try {
    const opened = (store = IndexStore.open(setup.indexDir));
    const { embedder, mode } = await prepareEmbedder(setup, opened, options, signal);
    setup.emit({ type: 'run-start', root: setup.root, indexDir: setup.indexDir, embedder: embedder.id, mode });

    // A repository new to an index of others is written in one transaction: searches see it whole or not
    // at all, never half-indexed or empty, and a killed run leaves the index as it was (a run that
    // starts an index keeps committing batch by batch, so that a killed one resumes where it stopped).
    if (!ownRepository(setup, opened) && opened.repositories.all().length > 0 && !opened.inTransaction)
      opened.beginSpan();
    const repository = opened.transaction(() =>
      opened.repositories.ensure(setup.root, setup.options.repo, defaultRepositoryName(setup.root)),
    );
    const rootId = repository.id;
    const { summary, run, stopped, analysisModel } = await indexChanges(setup, options, signal, embedder, {
      location: setup.indexDir,
      known: opened.files(rootId),
      writer: new EmbeddedRunWriter(opened, rootId, opened.generation + 1, embedder.id),
      lookup: (hashes) => cachedEmbeddings(opened, embedder.id, hashes),
      analysisCache: opened.analysisCache(),
    });
    await finish(setup, opened, run);
    summary.durationMs = performance.now() - started;

    if (stopped !== undefined || signal?.aborted) {
      const reason = stopped ?? signal?.reason;
      if (signal?.aborted) setup.emit({ type: 'run-aborted', reason: String((reason as Error)?.message ?? reason) });
      throw reason;
    }
    // For `--status`: when the index and this repository were last brought up to date, and with which models.
    opened.repositories.markIndexed(rootId, await gitHead(setup.root), Date.now());
    opened.meta.lastRun = {
      finishedAt: new Date().toISOString(),
      mode,
      durationMs: Math.round(summary.durationMs),
      analysisModel,
      modelCalls: summary.calls.model,
    };
    if (opened.inTransaction) {
      opened.commitSpan();
      VectorIndex.removeUnusedFiles(opened);
    }
    setup.emit({ type: 'run-done', summary });
    return summary;
  } finally {
    store?.rollbackSpan();
    store?.close();
    lock.release();
  }
}

/** The run's embedder, initialised, with the index reset for it or checked against it. */
async function prepareEmbedder(
  setup: RunSetup,
  store: IndexStore,
  options: RunOptions,
  signal: AbortSignal | undefined,
): Promise<{ embedder: Embedder; mode: LastRun['mode'] }> {
  const recorded = store.embedder;
  const embedder = await setup.chooseEmbedder(recorded?.id, store.meta.embedderHost);
  // A database copied or moved here from another root answers about files elsewhere: this one starts afresh.
  const rebuild = startsAfresh(options, recorded, embedder) || store.builtForElsewhere !== undefined;
  const others = otherRepositories(setup, store);
  if (rebuild && others.length > 0 && recorded && recorded.id !== embedder.id)
    throw new StoreError(
      `the index holds other repositories (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}) embedded with ${recorded.id}: ` +
        `a rebuild with ${embedder.id} would drop them; index into a new --db, or drop them first (--drop --repo <name>)`,
      'EMBEDDER_MISMATCH',
    );
  await embedder.init({
    ...(signal ? { signal } : {}),
    ...(recorded?.id === embedder.id && !rebuild ? { dimension: recorded.dimension } : {}),
  });
  // Checked before the index records it: FAISS could never hold vectors of a dimension above its limit.
  const record: EmbedderRecord = { id: embedder.id, dimension: checkDimension(embedder, embedder.dimension) };
  if (rebuild) {
    // One transaction until the run completes: readers keep the old index meanwhile, and a failed rebuild leaves it as it was.
    store.beginSpan();
    // Among other repositories, a rebuild starts this one afresh and leaves theirs as they are.
    const own = others.length > 0 ? ownRepository(setup, store) : undefined;
    if (own) store.dropRepository(own, store.generation);
    else if (others.length === 0) store.reset(record);
  } else store.claimEmbedder(record);
  // Where the embedder's server is, for searches that name none.
  if (store.meta.embedderHost !== embedder.host) store.meta.embedderHost = embedder.host;
  return { embedder, mode: rebuild ? 'rebuild' : options.paths ? 'paths' : options.since ? 'since' : 'full' };
}

/** The names of the index's repositories other than the one this run indexes. */
function otherRepositories(setup: RunSetup, store: IndexStore): string[] {
  const own = ownRepository(setup, store);
  return store.repositories
    .all()
    .filter((repository) => repository.id !== own?.id)
    .map((repository) => repository.name);
}

/** The repository this run indexes, when the index holds it already: by the name asked for, else by its root. */
function ownRepository(setup: RunSetup, store: IndexStore): Repository | undefined {
  const { repo } = setup.options;
  return repo !== undefined ? store.repositories.byName(repo) : store.repositories.byRoot(setup.root);
}

/** The summary's totals, and the FAISS file: loaded, brought level and rewritten only when a checkpoint is due. */
async function finish(setup: RunSetup, store: IndexStore, run: IndexRun): Promise<void> {
  const { summary, embedder } = run;
  summary.generation = store.generation;
  summary.elements.total = store.elementCount;
  const vectorOptions = setup.options.vectorIndex ?? {};
  if (VectorIndex.checkpointDue(store, vectorOptions)) {
    const record: EmbedderRecord = { id: embedder.id, dimension: embedder.dimension };
    const onVectorEvent = (event: VectorIndexEvent) => setup.emit({ type: 'vector-index', event });
    const opened = await VectorIndex.open(store, record, vectorOptions, onVectorEvent);
    const written = await opened.checkpoint(store, record, onVectorEvent);
    written.close();
    summary.index.written = true;
  }
  if (run.wrote) store.pruneEmbeddings();
  summary.index.description = store.meta.indexDescription;
  summary.index.vectors = store.elementCount;
}

/** The embedding cache's vectors of some document hashes (the others are absent). */
function cachedEmbeddings(store: IndexStore, embedder: string, hashes: readonly string[]): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const hash of hashes) {
    const vector = store.getEmbedding(embedder, hash);
    if (vector) out.set(hash, vector);
  }
  return out;
}
