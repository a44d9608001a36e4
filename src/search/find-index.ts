/**
 * Finds the index a command run anywhere inside a root should use: the
 * nearest ancestor holding `.ocvector/` with a database, as git finds `.git`.
 */
import { dirname, join, resolve } from 'node:path';
import { INDEX_DIR_NAME } from '../files/root.js';
import { isIndexDirectory } from '../store/open.js';

export interface FoundIndex {
  root: string;
  indexDir: string;
}

export function findIndex(start: string = process.cwd()): FoundIndex | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const indexDir = join(dir, INDEX_DIR_NAME);
    if (isIndexDirectory(indexDir)) return { root: dir, indexDir };
    if (dirname(dir) === dir) return undefined;
  }
}
