/**
 * Removes one repository from an index that holds several (`oc-vector-index
 * --drop --repo <name>`): its files, elements, words and lexical tables, in
 * one transaction under the write lock, so that a search sees it whole or
 * not at all. The other repositories are not touched; the caches are kept.
 */
import { prepareDirectory, StoreError } from './database.js';
import type { DroppedRepository } from '../store.js';
import { type LockOptions, WriteLock } from './lock.js';
import { isRepositoryName, badRepositoryName } from '../repository-name.js';
import { IndexStore } from './index-store.js';
import { unknownRepository } from '../repository-name.js';

export async function dropRepository(
  directory: string,
  name: string,
  options: LockOptions = {},
): Promise<DroppedRepository & { directory: string }> {
  if (!isRepositoryName(name)) throw new StoreError(badRepositoryName(name), 'BAD_NAME');
  // Read-only first: a missing index or repository is reported without creating anything.
  const probe = IndexStore.open(directory, { readonly: true });
  try {
    if (!probe.repositories.byName(name)) throw unknownRepository(name, 'nothing was deleted');
  } finally {
    probe.close();
  }
  prepareDirectory(directory);
  const lock = await WriteLock.acquire(directory, options);
  const store = IndexStore.open(directory);
  try {
    const repository = store.repositories.byName(name);
    if (!repository) throw unknownRepository(name, 'nothing was deleted');
    const generation = store.generation + 1;
    const removed = store.transaction(() => {
      const counts = store.dropRepository(repository, generation);
      // Searchers catch up on the next generation: vectors tombstoned, the list of repositories read again.
      store.meta.generation = generation;
      return counts;
    });
    return { directory, repo: name, root: repository.root, ...removed };
  } finally {
    store.close();
    lock.release();
  }
}
