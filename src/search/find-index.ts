/**
 * Finds the index a command run anywhere inside a root should use: the
 * nearest ancestor holding `.ocvector/` with a database, as git finds `.git`.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { INDEX_DIR_NAME } from '../files/root.js';
import { DATABASE_FILE } from '../store/embedded/database.js';

export interface FoundIndex {
  root: string;
  indexDir: string;
}

export function findIndex(start: string = process.cwd()): FoundIndex | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const indexDir = join(dir, INDEX_DIR_NAME);
    if (existsSync(join(indexDir, DATABASE_FILE))) return { root: dir, indexDir };
    if (dirname(dir) === dir) return undefined;
  }
}
