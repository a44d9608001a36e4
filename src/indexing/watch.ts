/**
 * Keeps an index fresh while files change: chokidar reports changes, which
 * are gathered for a quiet moment (debounced) and then indexed by the same
 * code path as a re-run, restricted to the changed paths. Runs never
 * overlap; changes that arrive during a run are indexed right after it.
 */
import { relative } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { defaultExcludeReason } from '../files/rules.js';
import type { IndexSummary } from './events.js';
import type { Indexer } from './indexer.js';

export interface WatchOptions {
  /** Quiet time before a batch of changes is indexed. Default 300 ms. */
  debounceMs?: number;
  /** Index the whole root once before watching. Default true. */
  initialRun?: boolean;
  onRun?: (summary: IndexSummary) => void;
  onError?: (error: Error) => void;
}

export interface IndexWatcher {
  /** Resolves once chokidar has seen the tree (and the initial run is done). */
  ready: Promise<void>;
  /** Resolves when every change seen so far has been indexed. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function watchIndex(indexer: Indexer, options: WatchOptions = {}): IndexWatcher {
  const debounceMs = options.debounceMs ?? 300;
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const report = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const flush = () => {
    timer = undefined;
    if (changed.size === 0 || closed) return;
    const paths = [...changed];
    changed.clear();
    running = running.then(() => indexer.run({ paths }).then(options.onRun, report));
  };
  const onChange = (path: string) => {
    if (closed) return;
    changed.add(path);
    clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };

  const watcher: FSWatcher = watch(indexer.root, {
    ignoreInitial: true,
    // Cheap pruning by name; the indexer applies the full rules (ignore files, secrets) to each path.
    // Excluded directories (node_modules, .git, the index itself) are not even watched.
    ignored: (path, stats) => {
      if (stats?.isFile()) return false;
      const rel = relative(indexer.root, path);
      return rel !== '' && defaultExcludeReason(rel.split(/[\\/]/).at(-1)!, true) !== undefined;
    },
    awaitWriteFinish: false,
  });
  watcher.on('add', onChange).on('change', onChange).on('unlink', onChange).on('error', report);

  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve())).then(async () => {
    if (options.initialRun ?? true) await indexer.run().then(options.onRun, report);
  });
  running = ready;

  return {
    ready,
    async idle() {
      for (;;) {
        const current = running;
        await current;
        if (timer) {
          clearTimeout(timer);
          flush();
        }
        if (current === running && changed.size === 0) return;
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}
