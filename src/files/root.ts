/**
 * Where an index lives: the root of the code it covers (the enclosing git
 * work tree, else the directory given) and its database directory.
 */
import { existsSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FilesError } from './errors.js';

/** The directory, under the root, that holds the database and the FAISS file. */
export const INDEX_DIR_NAME = '.ocvector';

/**
 * The root for a file or directory: the nearest ancestor holding an index
 * (`.ocvector/`) or `.git` (a directory, or a file in a linked work tree or
 * submodule), else the directory itself (a file's own directory). Throws
 * when the path does not exist.
 */
export function findRoot(path: string): string {
  const absolute = resolve(path);
  let info: Stats;
  try {
    info = statSync(absolute);
  } catch {
    throw new FilesError(`cannot index ${path}: no such file or directory`, 'PATH_NOT_FOUND');
  }
  const start = info.isDirectory() ? absolute : dirname(absolute);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, INDEX_DIR_NAME)) || existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export function defaultIndexDir(root: string): string {
  return join(root, INDEX_DIR_NAME);
}

/** Whether a directory is there at the path (a checkout's root, here on this machine); false when it cannot be read. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
