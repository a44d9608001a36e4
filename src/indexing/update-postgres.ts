/**
 * A real run into the shared PostgreSQL store: the same reading, analysis
 * and embedding as a run into the embedded index (run-files.ts,
 * process-file.ts), written by a PostgresRun: under the repository's lease,
 * its writes committed in one transaction at its end, so that searches see
 * the repository as it was until the run commits (and are answered
 * meanwhile), and a run that fails, is aborted or killed leaves it as it
 * was. Embeddings are reused by document hash from any repository of the store.
 */
import { gitHead } from '../files/git.js';
import { StoreError } from '../store/errors.js';
import type { EmbedderRecord, LastRun } from '../store/rows.js';
import type { PostgresChoice } from '../store/open-store.js';
import { PostgresConnection, DEFAULT_POSTGRES_SCHEMA } from '../store/postgres/connection.js';
import { PostgresRun } from '../store/postgres/run-writer.js';
import { defaultRepositoryName } from '../store/repository-name.js';
import { checkDimension } from '../vector/check.js';
import type { Embedder } from '../vector/embedder.js';
import type { IndexSummary } from './events.js';
import { INDEXER_DEFAULTS, type RunOptions } from './options.js';
import { indexChanges } from './run-files.js';
import { startsAfresh, type RunSetup } from './run-setup.js';

/** What the shared store's summary says of its vectors. */
const VECTOR_INDEX_DESCRIPTION = 'pgvector HNSW (inner product)';

export async function updatePostgresIndex(
  setup: RunSetup,
  options: RunOptions,
  store: PostgresChoice,
): Promise<IndexSummary> {
  const started = performance.now();
  const signal = setup.signalFor(options);
  signal?.throwIfAborted();
  const connection = await PostgresConnection.open(store.url, {
    schema: store.schema ?? DEFAULT_POSTGRES_SCHEMA,
    maxConnections: 2,
    migrate: true,
  });
  let run: PostgresRun | undefined;
  try {
    run = await PostgresRun.begin(connection, {
      repo: setup.options.repo ?? defaultRepositoryName(setup.root),
      root: setup.root,
      waitMs: setup.options.lockWaitMs ?? INDEXER_DEFAULTS.lockWaitMs,
    });
    const opened = run;
    const { embedder, mode } = await prepareEmbedder(setup, opened, options, signal);
    setup.emit({ type: 'run-start', root: setup.root, indexDir: connection.location, embedder: embedder.id, mode });

    // The model's answers are not cached in the shared store: unchanged files are never analysed again anyway.
    const {
      summary,
      run: indexRun,
      stopped,
      analysisModel,
    } = await indexChanges(setup, options, signal, embedder, {
      location: connection.location,
      known: await opened.files(),
      writer: opened,
      lookup: (hashes) => opened.embeddings(hashes),
    });
    if (stopped !== undefined || signal?.aborted) {
      // Nothing of a run that did not finish is kept: the repository stays as it was.
      await opened.rollback();
      const reason = stopped ?? signal?.reason;
      if (signal?.aborted) setup.emit({ type: 'run-aborted', reason: String((reason as Error)?.message ?? reason) });
      throw reason;
    }
    const counts = await opened.counts();
    summary.durationMs = performance.now() - started;
    const lastRun: LastRun = {
      finishedAt: new Date().toISOString(),
      mode,
      durationMs: Math.round(summary.durationMs),
      analysisModel,
      modelCalls: summary.calls.model,
    };
    summary.generation = await opened.commit({ commit: await gitHead(setup.root), at: Date.now(), lastRun });
    summary.elements.total = counts.elements;
    summary.index = { description: VECTOR_INDEX_DESCRIPTION, vectors: counts.elements, written: indexRun.wrote };
    setup.emit({ type: 'run-done', summary });
    return summary;
  } finally {
    await run?.rollback();
    await connection.close();
  }
}

/** The run's embedder, initialised, with the repository started afresh for it or checked against the store's. */
async function prepareEmbedder(
  setup: RunSetup,
  run: PostgresRun,
  options: RunOptions,
  signal: AbortSignal | undefined,
): Promise<{ embedder: Embedder; mode: LastRun['mode'] }> {
  const recorded = run.state.embedder;
  const embedder = await setup.chooseEmbedder(recorded?.id, run.state.embedderHost);
  const rebuild = startsAfresh(options, recorded, embedder);
  const others = await run.otherRepositories();
  await embedder.init({
    ...(signal ? { signal } : {}),
    ...(recorded?.id === embedder.id && !rebuild ? { dimension: recorded.dimension } : {}),
  });
  const record: EmbedderRecord = { id: embedder.id, dimension: checkDimension(embedder, embedder.dimension) };
  const switching = recorded && (recorded.id !== record.id || recorded.dimension !== record.dimension);
  if (rebuild && switching && others.length > 0)
    throw new StoreError(
      `the store holds other repositories (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}) embedded with ${recorded.id}: ` +
        `a rebuild with ${record.id} would leave their vectors unsearchable; index into another schema (--schema), or drop them first (--drop --repo <name>)`,
      'EMBEDDER_MISMATCH',
    );
  await run.useEmbedder(record, embedder.host, rebuild);
  return { embedder, mode: rebuild ? 'rebuild' : options.paths ? 'paths' : options.since ? 'since' : 'full' };
}
