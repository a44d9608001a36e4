/**
 * An index that moved: a repository renamed or moved with its `.ocvector`, copied
 * (`cp -r`, a container image, a restored CI cache), or reached by another spelling of
 * its path. Paths in the index are relative to their repository's root, so only the
 * roots' own paths are out of date. The index remembers the directory that held it
 * (IndexMeta.home); where it sits elsewhere now, every root inside that directory is
 * read inside the new one. A search reads them so at once, and the next run writes them
 * so (Repositories). Unchanged files then stay as they were: a copy's new modification
 * times only have them read and hashed again. Roots outside the directory (another
 * repository indexed into this one with --db) did not move, and are left.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { INDEX_DIR_NAME } from '../../files/root.js';
import { isInside } from '../../files/scan.js';

/** The index's directory was in `from`'s default place, and is in `to`'s now. */
export interface Relocation {
  from: string;
  to: string;
}

/**
 * Where the roots of the index at `directory` lie now, when it moved from `home` (the
 * directory recorded as holding it), or, for an index older than that record, from its
 * first root's default place (the one its first run made, unless that root is here).
 * Undefined for an index in no default place (`--db` elsewhere) or still where it was.
 */
export function findRelocation(
  directory: string,
  roots: () => readonly string[],
  home: string | undefined,
): Relocation | undefined {
  const to = homeOf(directory);
  if (to === undefined) return undefined;
  // The roots are read only for an index older than the record: every open of one in place stops here.
  if (home !== undefined) return home === to ? undefined : { from: home, to };
  const first = roots()[0];
  if (first === undefined) return undefined;
  // Compared as real paths: the same directory reached through a symbolic link is the same root.
  const here = realPath(to);
  return roots().some((root) => realPath(root) === here) ? undefined : { from: first, to };
}

/** The directory whose default place `directory` is (`<home>/.ocvector`); undefined for an index kept elsewhere. */
export function homeOf(directory: string): string | undefined {
  return basename(directory) === INDEX_DIR_NAME ? dirname(resolve(directory)) : undefined;
}

/** `path` as it lies after the move: inside `from`, the same place inside `to`; else unchanged. */
export function relocated(path: string, relocation: Relocation | undefined): string {
  if (!relocation || !isInside(relocation.from, path)) return path;
  return resolve(relocation.to, relative(relocation.from, path));
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
