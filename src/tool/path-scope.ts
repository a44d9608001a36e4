/**
 * A tool's `path_prefix` argument, by codebase_search's rule: confined to
 * the repositories the call searches (paths.ts), an absolute path narrowing
 * them to the one that holds it, and a malformed glob refused before the
 * permission prompt, not after it. codebase_search and find_files_to_change use it.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PathOutsideRootError } from '../files/errors.js';
import { SearchError } from '../search/errors.js';
import { compileFilters } from '../search/filters.js';
import { type RepositoryDirectory, searchedRepositories, splitGlob } from '../search/path-filter.js';
import type { SearchService } from '../search/search-service.js';
import { confineToRoots, holdingRoot } from './paths.js';

export interface PathScope {
  /** The prefix as results show paths: relative to the repository root, forward slashes ('' for the root itself). */
  path: string;
  /** The repositories to search: as asked, or the one an absolute path lies in. */
  repos: string[] | undefined;
  /** Those repositories and their directories. */
  searched: RepositoryDirectory[];
}

/**
 * `pathPrefix` checked against the repositories this search reads (not the
 * index's first one). Throws PathOutsideRootError for a path outside them,
 * SearchError for a malformed glob or an unknown repository (refusalOf
 * words both for a model).
 */
export async function scopePathPrefix(
  searcher: SearchService,
  pathPrefix: string,
  repos: string[] | undefined,
): Promise<PathScope> {
  let searched = await searchedRepositories(searcher, repos);
  const dirs = searched.map((repository) => repository.dir);
  const path = confineToRoots(dirs, pathPrefix);
  // An absolute path names one repository: relative to it, the path means nothing in the others.
  const holder = isAbsolute(pathPrefix.trim()) ? holdingRoot(dirs, pathPrefix) : undefined;
  let scopedRepos = repos;
  if (holder !== undefined) {
    searched = searched.filter((repository) => repository.dir === holder);
    scopedRepos = searched.map((repository) => repository.name);
  }
  if (path) compileFilters({ path });
  return { path, repos: scopedRepos, searched };
}

/** What to answer for an error of scopePathPrefix or of the search itself; undefined for one to pass on. */
export function refusalOf(error: unknown): string | undefined {
  if (error instanceof PathOutsideRootError)
    return `path_prefix refused: ${error.message}; give a path inside the repository, such as src/`;
  if (error instanceof SearchError && error.code !== 'CLOSED') return `invalid arguments: ${error.message}`;
  return undefined;
}

/**
 * `generic`, the note for an empty answer, with what path_prefix was
 * matched as (root-relative, as results show paths) and whether the
 * repositories hold it. No directory is named: a caller may be allowed some
 * repositories only.
 */
export function emptyPrefixNote(generic: string, scope: Pick<PathScope, 'path' | 'searched'>): string {
  const { head } = splitGlob(scope.path);
  const held = scope.searched.some((repository) => existsSync(join(repository.dir, head)));
  return held
    ? `${generic}; path_prefix was matched as ${scope.path}, relative to the repository root as results show paths`
    : `${generic}; no repository searched has ${head.replace(/\/$/, '')} (path_prefix is relative to the repository root, as results show paths)`;
}
