/**
 * A first index of a linked git worktree starts from a copy of its main worktree's
 * index: an agent given a worktree of its own would otherwise wait for its first answer
 * as long as a first index takes, to rebuild what the main checkout's index holds
 * already (docs/performance.md). The copy's repository
 * follows it into the worktree (store/embedded/relocation.ts), and the run then reads
 * and hashes every file, as a checkout's files are all new to it, analysing and
 * embedding only those that differ from the main checkout's.
 */
import { existsSync, lstatSync } from 'node:fs';
import { defaultIndexDir } from '../files/root.js';
import { worktreeLinkOf } from '../files/worktree.js';
import type { Store } from '../store/store.js';
import type { RunOptions } from './options.js';
import type { IndexerSetup } from './indexer-setup.js';

/** Copies the main worktree's index where this run would make a new one, when its store can start from a copy. */
export async function seedFromMainWorktree(setup: IndexerSetup, store: Store, run: RunOptions): Promise<void> {
  const { options, root, indexDir } = setup;
  if (options.seed === false || run.rebuild || options.rebuild || !store.capabilities.seedFromCopy) return;
  // Only into the worktree's own default place: an index named with --db is the caller's to fill.
  if (indexDir !== defaultIndexDir(root) || existsSync(indexDir)) return;
  const link = worktreeLinkOf(root);
  if (!link) return;
  const source = defaultIndexDir('why' in link ? link.claimed : link.main);
  if (!isRealDirectory(source)) return;
  // A worktree its repository does not name back is not believed (git's own rule): its index stays where it is.
  if ('why' in link) {
    setup.emit({ type: 'index-not-copied', from: source, why: link.why });
    return;
  }
  const result = await store.seedFrom(source);
  if (result.copied) setup.emit({ type: 'index-copied', from: source });
  // Unless another run (a watcher, an MCP server's reindex) made the index meanwhile: this one then goes on in it.
  else if (!existsSync(indexDir)) setup.emit({ type: 'index-not-copied', from: source, why: result.why });
}

/** A directory, not a link to one: the main worktree's own index, not one a link leads to. */
function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
