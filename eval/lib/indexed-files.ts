/** The files an index holds, for evaluations that read them again (a baseline over the same files). */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Indexer, IndexStore } from '../../src/internal.js';

/** The root-relative paths of the files the index at `indexDir` holds (status `indexed`), in path order. */
export function indexedFiles(indexDir: string): string[] {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    return store
      .fileSummaries()
      .filter((file) => file.status === 'indexed')
      .map((file) => file.path);
  } finally {
    store.close();
  }
}

/**
 * Indexes a checked-out directory into `<indexRoot>/<its name>` (built-in
 * embedder, no model), unless `reuse` and an index is there; returns the index directory.
 */
export async function indexCheckout(dir: string, indexRoot: string, reuse = false): Promise<string> {
  const indexDir = join(resolve(indexRoot), basename(dir));
  if (reuse && existsSync(join(indexDir, 'index.db'))) return indexDir;
  rmSync(indexDir, { recursive: true, force: true });
  mkdirSync(indexDir, { recursive: true });
  await new Indexer({ path: dir, root: dir, indexDir, embedder: 'builtin', llm: false }).run();
  return indexDir;
}
