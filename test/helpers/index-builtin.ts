/** A run of the Indexer with the built-in embedder and no model, as most tests index. */
import { Indexer } from '../../src/indexing/indexer.js';
import type { IndexerOptions } from '../../src/indexing/options.js';
import { eventLog } from './repo.js';

/** Indexes `path` (with more of the Indexer's options where given), and the run's events. */
export async function indexBuiltin(path: string, options: Omit<IndexerOptions, 'path' | 'embedder' | 'llm'> = {}) {
  const log = eventLog();
  const summary = await new Indexer({ path, ...options, embedder: 'builtin', llm: false, onEvent: log.onEvent }).run();
  return { summary, log };
}
