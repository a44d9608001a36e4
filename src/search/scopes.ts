/**
 * Which repositories a search reads. An index holds one repository or
 * many (`oc-vector-index <dir> --repo <name>`); a search reads every one,
 * or the ones it names. Each set of repositories has lexical caches of its
 * own, so that the terms' weights and every count a stage makes are the
 * searched repositories' (scoped to one repository, a search ranks as
 * that repository indexed alone), kept while the index's list of
 * repositories stays the same. The reads themselves come from the
 * snapshot being searched (store/reads.ts).
 */
import {
  type IndexedFile,
  MAX_SCOPES,
  type OccurrenceReads,
  type ScopeReads,
  type Snapshot,
  type VectorScope,
} from '../store/reads.js';
import type { Repository } from '../store/rows.js';
import { SearchError } from './errors.js';
import { AsyncGenerationCache } from './generation-cache.js';
import { FILTERED_OVERFETCH } from './ranking/knobs.js';
import { LexicalSearch } from './lexical-search.js';
import { filesPerModule } from './ranking/copies.js';

/** The repositories of one search, and what reads them in its snapshot. */
export interface SearchScope {
  /** Root ids, in the index's order. */
  roots: readonly number[];
  /** Some of the index's repositories, not all. */
  scoped: boolean;
  reads: ScopeReads;
  /** The snapshot's words as written and their lines (references, a name's spelling). */
  occurrences: OccurrenceReads;
  lexical: LexicalSearch;
  /** Elements in these repositories (cached per generation). */
  elementCount(): Promise<number>;
  /**
   * Files per module among these repositories' files: 1 where no file is a shipped copy of
   * another, up to 5 where a package ships each module as `.ts`, `.js`, `.cjs`, `.d.ts` and
   * `.d.cts` (ranking/copies.ts). The candidate lists are that much deeper, so that they hold
   * as many modules as in a repository without copies. Read once while the index's list of
   * repositories stays the same, not at each generation: it only sizes the lists, and a shared
   * store, whose generation moves with every writer's commit, would read every path again.
   */
  filesPerModule(): Promise<number>;
  /** What a k-NN is kept to. */
  vectors: VectorScope;
}

/** What a scope keeps across searches: its lexical caches and its element ids, per generation. */
interface ScopeCaches {
  lexical: LexicalSearch;
  counts: AsyncGenerationCache<number>;
  /** Read once (SearchScope.filesPerModule); forgotten when the read fails, so that the next search reads again. */
  filesPerModule?: Promise<number> | undefined;
  ids: AsyncGenerationCache<BigInt64Array>;
  idSet: AsyncGenerationCache<ReadonlySet<number>>;
}

/** Repositories a search may name at once. */
export const MAX_REPOS = 100;

export class SearchScopes {
  /** Where a repository's files are on this machine: where it was indexed from, unless a checkout elsewhere was named. */
  readonly #rootOf: (repository: Repository) => string;
  #key = '';
  #repositories: readonly Repository[] = [];
  #byName = new Map<string, Repository>();
  /** Each repository's root directory, and its name, by root id: what results are relative to and named by. */
  #roots = new Map<number, string>();
  #names = new Map<number, string>();
  #scopes = new Map<string, ScopeCaches>();

  constructor(rootOf: (repository: Repository) => string = (repository) => repository.root) {
    this.#rootOf = rootOf;
  }

  /** The index's repositories, oldest first, as of the last snapshot seen. */
  get repositories(): readonly Repository[] {
    return this.#repositories;
  }

  /** Root directories by root id. */
  get roots(): ReadonlyMap<number, string> {
    return this.#roots;
  }

  /** Repository names by root id. */
  get names(): ReadonlyMap<number, string> {
    return this.#names;
  }

  /** Takes the snapshot's list of repositories: the scopes' caches start afresh when it changed. */
  see(repositories: readonly Repository[]): void {
    if (repositories === this.#repositories) return;
    const key = repositories.map((r) => `${r.id}:${r.name}:${r.root}`).join('\n');
    this.#repositories = repositories;
    if (key === this.#key) return;
    this.#key = key;
    this.#byName = new Map(repositories.map((repository) => [repository.name, repository]));
    this.#roots = new Map(repositories.map((repository) => [repository.id, this.#rootOf(repository)]));
    this.#names = new Map(repositories.map((repository) => [repository.id, repository.name]));
    this.#scopes = new Map();
  }

  /**
   * The scope of a search naming `repos` (every repository when none), read
   * through `snapshot`. An unknown name fails with SearchError UNKNOWN_REPO,
   * without listing the others (a caller may be allowed some repositories only).
   */
  resolve(snapshot: Snapshot, repos: readonly string[] | undefined): SearchScope {
    this.see(snapshot.repositories);
    const roots = this.#rootsOf(repos);
    const key = roots.join(',');
    let caches = this.#scopes.get(key);
    if (!caches) {
      if (this.#scopes.size >= MAX_SCOPES) this.#scopes = new Map();
      caches = {
        lexical: new LexicalSearch(),
        counts: new AsyncGenerationCache(1),
        ids: new AsyncGenerationCache(1),
        idSet: new AsyncGenerationCache(1),
      };
      this.#scopes.set(key, caches);
    }
    const reads = snapshot.reads(roots);
    const { generation } = snapshot;
    const kept = caches;
    const elementIds = () =>
      kept.ids.get(generation, 'ids', () => reads.elementIds().then((ids) => BigInt64Array.from(ids, BigInt)));
    return {
      roots,
      scoped: roots.length < this.#repositories.length,
      reads,
      occurrences: snapshot.occurrences,
      lexical: kept.lexical,
      elementCount: () => kept.counts.get(generation, 'n', () => reads.elementCount()),
      filesPerModule: () =>
        (kept.filesPerModule ??= reads
          .files()
          .then((files) => filesPerModule(pathsByRoot(files)))
          .catch((error: unknown) => {
            kept.filesPerModule = undefined;
            throw error;
          })),
      vectors: {
        roots,
        scoped: roots.length < this.#repositories.length,
        elementIds,
        elementSet: () =>
          kept.idSet.get(generation, 'ids', () => elementIds().then((ids) => new Set(Array.from(ids, Number)))),
        overfetch: FILTERED_OVERFETCH,
      },
    };
  }

  /** The directories of the repositories a search naming `repos` reads (all when none); an unknown name fails as in resolve. */
  directories(repos: readonly string[] | undefined): string[] {
    return this.#rootsOf(repos).map((id) => this.#roots.get(id)!);
  }

  #rootsOf(repos: readonly string[] | undefined): number[] {
    if (repos === undefined) return this.#repositories.map((r) => r.id);
    if (!Array.isArray(repos) || repos.some((name) => typeof name !== 'string'))
      throw new SearchError('repos must be a list of repository names', 'BAD_OPTION');
    if (repos.length === 0)
      throw new SearchError(
        'repos is empty: name at least one repository, or leave it out to search all',
        'BAD_OPTION',
      );
    if (repos.length > MAX_REPOS)
      throw new SearchError(`repos names ${repos.length} repositories; at most ${MAX_REPOS} are allowed`, 'BAD_OPTION');
    const wanted = new Set<number>();
    for (const name of repos) {
      const repository = this.#byName.get(name);
      if (!repository) throw unknownRepository(name);
      wanted.add(repository.id);
    }
    return this.#repositories.map((r) => r.id).filter((id) => wanted.has(id));
  }
}

/** The error for a repository the index does not hold, naming no other. */
export function unknownRepository(name: unknown): SearchError {
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 100)) : String(name);
  return new SearchError(
    `the index has no repository named ${shown} (oc-vector-index --status lists them; index_status over MCP)`,
    'UNKNOWN_REPO',
  );
}

/** Each repository's file paths: copies are found within one repository. */
function pathsByRoot(files: readonly IndexedFile[]): string[][] {
  const byRoot = new Map<number, string[]>();
  for (const file of files) {
    const paths = byRoot.get(file.rootId);
    if (paths) paths.push(file.path);
    else byRoot.set(file.rootId, [file.path]);
  }
  return [...byRoot.values()];
}
