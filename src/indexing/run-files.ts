/**
 * What a run does the same way whatever store it writes to: its summary,
 * and the loop that reads, analyses and embeds the changed files several at
 * a time and hands their outcomes to the run (index-run.ts) batch by batch.
 */
import type { ScannedFile } from '../files/scan.js';
import type { IndexSummary } from './events.js';
import { eachConcurrently, type IndexRun, largestFirst } from './index-run.js';
import { processFile } from './process-file.js';
import { filesInFlight, type RunSetup } from './run-setup.js';

/**
 * Reads, analyses and embeds the files, several at a time, and commits
 * them in batches (those done so far also when the run stops). Returns why
 * it stopped early, if it did.
 */
export async function indexFiles(setup: RunSetup, run: IndexRun, candidates: readonly ScannedFile[]): Promise<unknown> {
  let done = 0;
  const width = filesInFlight(run.analyzer, !run.embedder.inProcess);
  const stopped = await eachConcurrently(
    largestFirst(candidates),
    width,
    async (scanned) => {
      await run.add(await processFile(run, scanned, setup.limits.maxBytes, setup.emit));
      setup.emit({ type: 'progress', done: ++done, total: candidates.length });
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
export function newSummary(root: string, indexDir: string, embedder: string, scanned: number): IndexSummary {
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
