/**
 * An index that moved: a repository renamed or moved with its `.ocvector`, copied
 * (`cp -r`, a container image, a restored CI cache), or reached by another spelling of
 * its path. Paths in the index are relative to their repository's root, so only the
 * roots' own paths are out of date. The index remembers the directory that held it
 * (IndexMeta.home); where it sits elsewhere now, every root inside that directory is
 * read inside the new one. A search reads them so at once, and the next run writes them
 * so (Repositories). Unchanged files then stay as they were: a copy's new modification
 * times only have them read and hashed again. A root outside the directory did not move
 * with it, and is not served (servesRoot): an index in a repository's default place arrives
 * with the repository, and a root it names elsewhere is no instruction to read there.
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
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

/** The directory an index's roots must lie in, as written and as its real path. */
export interface Confinement {
  home: string;
  real: string;
}

/**
 * The directory whose roots an index at `directory` may serve: its home (`<home>/.ocvector`);
 * undefined for an index kept in a directory of its own (`--db`), whose roots are the user's
 * own choice.
 */
export function confinementOf(directory: string): Confinement | undefined {
  const home = homeOf(directory);
  return home === undefined ? undefined : { home, real: realPath(home) };
}

/**
 * Whether an index confined to `confinement` may read `root`: an absolute path whose real
 * path lies inside the home's, so that neither `..` nor a symbolic link in the clone leads out
 * of it. A root that is not there is judged by its path as written (nothing can be read from
 * it). An index of no confinement serves every root.
 */
export function servesRoot(confinement: Confinement | undefined, root: string): boolean {
  if (confinement === undefined) return true;
  if (!isAbsolute(root)) return false;
  if (existsSync(root)) return isInside(confinement.real, realPath(root));
  return isInside(confinement.home, root) || isInside(confinement.real, root);
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
