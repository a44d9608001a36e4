/**
 * What a user's `--path` means, resolved before the search (issue 57). One
 * rule: a path as printed works as a filter. The readable output prints
 * each result relative to the current directory (absolute when outside
 * it), so a `--path` is read like any other path on a command line:
 * relative to the current directory, or absolute, and a glob the same way
 * (its wildcards kept). The index records paths relative to each
 * repository's root, so the path becomes that, plus the repository that
 * holds it; a path outside every repository searched is refused with a
 * sentence, and so is a glob that cannot be read.
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isInside } from '../files/scan.js';
import { SearchError } from './errors.js';
import { compileGlob } from './glob.js';
import type { SearchService } from './search-service.js';

/** A repository of the index and where its files are on this machine. */
export interface RepositoryDirectory {
  name: string;
  dir: string;
}

/** A `--path` as the searcher filters on it. */
export interface ResolvedPathFilter {
  /** What the user gave. */
  input: string;
  /** Relative to each repository in `repos` (a prefix or a glob); undefined: the repositories whole. */
  path: string | undefined;
  /** The repositories the path lies in. */
  repos: RepositoryDirectory[];
  /** Every repository the search could read, for suggestions. */
  searched: readonly RepositoryDirectory[];
  cwd: string;
}

const WILDCARD = /[*?[]/;
/** Directories named in a message before "and N more". */
const LISTED = 3;

/**
 * Reads `input` against `cwd` and the repositories searched. Fails with
 * SearchError BAD_OPTION, a sentence naming `label`, for a malformed glob,
 * `..` after a wildcard, or a path outside every repository searched.
 */
export function resolvePathFilter(
  input: string,
  cwd: string,
  repositories: readonly RepositoryDirectory[],
  label = '--path',
): ResolvedPathFilter {
  const text = input.trim().replace(/\\/g, '/'); // a Windows path as typed or copied
  if (text.includes('\0')) throw bad(`${label} contains a NUL character`);
  if (!text) throw bad(`${label} is empty: give a directory, a file or a glob`);
  if (WILDCARD.test(text)) {
    try {
      compileGlob(text);
    } catch (error) {
      if (error instanceof SearchError) throw bad(`${label} ${input}: ${error.message}`);
      throw error;
    }
  }
  const { head, tail } = splitGlob(text);
  if (tail.split('/').includes('..'))
    throw bad(`${label} ${input}: .. may come only before the first wildcard (write ../src/*.ts, not src/*/../*.ts)`);
  const resolved: ResolvedPathFilter = { input, path: undefined, repos: [], searched: repositories, cwd };
  // An index with no repository yet has no root to read a path against: the path is its own.
  if (repositories.length === 0) return { ...resolved, path: text };

  const target = resolve(cwd, head || '.');
  const holder = repositories
    .map((repository) => ({ repository, base: baseHolding(repository.dir, target) }))
    .filter((found): found is { repository: RepositoryDirectory; base: string } => found.base !== undefined)
    .sort((a, b) => b.base.length - a.base.length)[0];
  // Repositories whose directories lie inside the target: beside one another under it, or nested in the holder's.
  const below = repositories.filter(
    (repository) => repository !== holder?.repository && isInside(target, repository.dir),
  );
  // From a directory above a repository, only a bare name, `**/...` or the whole means what it means from its root.
  const belowPath = tail === '' || !tail.includes('/') || tail.startsWith('**/') || tail === '**' ? tail : undefined;
  if (below.length > 0 && belowPath === undefined)
    throw bad(
      `${label} ${input} is a glob that names directories above the repositories ${listed(below.map((r) => r.dir))}: start it inside one, or with **/`,
    );
  if (holder) {
    const within = toSlashes(relative(holder.base, target));
    // A pattern without a slash matches a name anywhere below where it is given, as in a .gitignore there.
    const path = head === '' && tail !== '' ? (within ? `${within}/**/${tail}` : tail) : joinSlashes(within, tail);
    if (below.length > 0 && path !== belowPath)
      throw bad(
        `${label} ${input} covers part of ${holder.repository.dir} and the whole of ${listed(below.map((r) => r.dir))}, which one path cannot say: give a path inside one of them`,
      );
    return { ...resolved, path: path || undefined, repos: [holder.repository, ...below] };
  }
  if (below.length > 0) return { ...resolved, path: belowPath || undefined, repos: below };
  const suggestion = isAbsolute(text) ? undefined : suggest(text, cwd, repositories);
  throw bad(
    `${label} ${input} names ${target}, outside the repositories searched (${listed(repositories.map((r) => r.dir))}): a ${label} is relative to the current directory, or absolute${suggestion ? `; did you mean ${label} ${suggestion}?` : ''}`,
  );
}

/**
 * The sentence for a search that a path filter left empty: what the path
 * was matched as and where, whether that exists, and, when it does not, the
 * path that does (read from the repository's root instead).
 */
export function describeEmptyPathFilter(filter: ResolvedPathFilter, label = '--path'): string {
  const where = listed(filter.repos.map((repository) => repository.dir));
  const matchedAs = `${label} ${filter.input} was matched as ${filter.path ?? 'the whole repository'} in ${where}`;
  const head = splitGlob(filter.path ?? '').head;
  if (filter.repos.some((repository) => existsSync(join(repository.dir, head))))
    return `no results: ${matchedAs}; try other words, or a wider ${label}`;
  const suggestion = suggest(filter.input.trim().replace(/\\/g, '/'), filter.cwd, filter.searched);
  const missing = head === filter.path ? 'which does not exist' : `where ${head.replace(/\/$/, '')} does not exist`;
  return `no results: ${matchedAs}, ${missing} (a ${label} is relative to the current directory, as results are printed)${suggestion ? `; did you mean ${label} ${suggestion}?` : ''}`;
}

/**
 * The repositories a search naming `repos` reads (all when none), each with
 * its directory on this machine. An unknown name fails as the search would
 * (SearchError UNKNOWN_REPO).
 */
export async function searchedRepositories(
  searcher: Pick<SearchService, 'currentRepositories' | 'searchRoots'>,
  repos?: readonly string[],
): Promise<RepositoryDirectory[]> {
  const dirs = await searcher.searchRoots(repos);
  const wanted = repos ? new Set(repos) : undefined;
  const names = (await searcher.currentRepositories())
    .map((repository) => repository.name)
    .filter((name) => !wanted || wanted.has(name));
  // Both lists are in the index's order; should the index change between the two reads, one read per name.
  if (names.length === dirs.length) return names.map((name, i) => ({ name, dir: dirs[i]! }));
  return Promise.all(names.map(async (name) => ({ name, dir: (await searcher.searchRoots([name]))[0]! })));
}

/** `src/v4/*.ts` -> `src/v4/` and `*.ts`: the directories before the first wildcard, and the pattern from there. */
export function splitGlob(text: string): { head: string; tail: string } {
  const wildcard = text.search(WILDCARD);
  if (wildcard < 0) return { head: text, tail: '' };
  const cut = text.lastIndexOf('/', wildcard) + 1;
  return { head: text.slice(0, cut), tail: text.slice(cut) };
}

/** The form of `dir` that holds `target`: as recorded, or through its links (the current directory is a real path). */
function baseHolding(dir: string, target: string): string | undefined {
  if (isInside(dir, target)) return dir;
  try {
    const real = realpathSync(dir);
    return isInside(real, target) ? real : undefined;
  } catch {
    return undefined; // not on this machine: only its recorded path can hold anything
  }
}

/** `text` read from a repository's root, where that exists, shown as results are (from `cwd` when inside it). */
function suggest(text: string, cwd: string, repositories: readonly RepositoryDirectory[]): string | undefined {
  const { head } = splitGlob(text);
  const found = repositories.find((repository) => head && existsSync(join(repository.dir, head)));
  if (!found) return undefined;
  const full = join(found.dir, text);
  const fromHere = toSlashes(relative(cwd, full));
  return fromHere.startsWith('../') || fromHere === '..' || isAbsolute(fromHere) ? toSlashes(full) : fromHere;
}

function joinSlashes(a: string, b: string): string {
  return a && b ? `${a}/${b}` : a || b;
}

function toSlashes(path: string): string {
  return path.split(sep).join('/');
}

function listed(dirs: readonly string[]): string {
  if (dirs.length <= LISTED) return dirs.join(', ');
  return `${dirs.slice(0, LISTED).join(', ')} and ${dirs.length - LISTED} more`;
}

function bad(message: string): SearchError {
  return new SearchError(message, 'BAD_OPTION');
}
