/**
 * Which repositories a search reads. An index holds one repository or
 * many (`oc-vector-index <dir> --repo <name>`); a search reads every one,
 * or the ones it names. Each set of repositories has a lexical reader of its
 * own, so that BM25, the terms' weights and every count a stage makes are
 * the searched repositories' (scoped to one repository, a search ranks as
 * that repository indexed alone), kept while the index's list of
 * repositories stays the same.
 */
import type { Repository } from '../store/repositories.js';
import type { VectorIndex } from '../store/vector-file.js';
import { FILTERED_OVERFETCH } from './knobs.js';
import { SearchReader } from '../store/search-reader.js';
import type { IndexStore } from '../store/store.js';
import { SearchError } from './errors.js';
import { GenerationCache } from './generation-cache.js';
import { LexicalSearch } from './lexical-search.js';

/** The repositories of one search and what reads them. */
export interface SearchScope {
  /** Root ids, in the index's order. */
  roots: readonly number[];
  /** Some of the index's repositories, not all. */
  scoped: boolean;
  reader: SearchReader;
  lexical: LexicalSearch;
  /** Elements in these repositories (the index's count of vectors when they are all of them). */
  elementCount(): number;
  /** The elements of these repositories (for the index's generation), ascending: what a scoped k-NN may return. */
  elementIds(generation: number): BigInt64Array;
  /** The same, as a set (to keep the scope's hits of an unrestricted k-NN). */
  elementSet(generation: number): ReadonlySet<number>;
}

/** At most this many scopes are kept (each holds a reader and its caches); past it they are made afresh. */
const MAX_SCOPES = 32;
/** Repositories a search may name at once. */
export const MAX_REPOS = 100;

export class SearchScopes {
  readonly #store: IndexStore;
  /** Elements in the index, for the scope of every repository (the vectors' count when there are vectors). */
  readonly #indexElements: () => number;
  #repositories: Repository[] = [];
  #byName = new Map<string, Repository>();
  /** Each repository's root directory, and its name, by root id: what results are relative to and named by. */
  #roots = new Map<number, string>();
  #names = new Map<number, string>();
  #scopes = new Map<string, SearchScope>();

  constructor(store: IndexStore, indexElements: () => number) {
    this.#store = store;
    this.#indexElements = indexElements;
    this.refresh();
  }

  /** The index's repositories, oldest first. */
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

  /** Reads the list of repositories again (after an indexer committed): scopes are made afresh when it changed. */
  refresh(): void {
    const now = this.#store.repositories.all();
    const same =
      now.length === this.#repositories.length &&
      now.every((r, i) => r.id === this.#repositories[i]!.id && r.root === this.#repositories[i]!.root);
    this.#repositories = now;
    this.#byName = new Map(now.map((repository) => [repository.name, repository]));
    this.#roots = new Map(now.map((repository) => [repository.id, repository.root]));
    this.#names = new Map(now.map((repository) => [repository.id, repository.name]));
    if (!same) this.#scopes = new Map();
  }

  /**
   * The scope of a search naming `repos` (every repository when none).
   * An unknown name fails with SearchError UNKNOWN_REPO, without listing the
   * others (a caller may be allowed some repositories only).
   */
  resolve(repos: readonly string[] | undefined): SearchScope {
    const roots = this.#rootsOf(repos);
    const key = roots.join(',');
    let scope = this.#scopes.get(key);
    if (!scope) {
      if (this.#scopes.size >= MAX_SCOPES) this.#scopes = new Map();
      scope = this.#make(roots);
      this.#scopes.set(key, scope);
    }
    return scope;
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

  #make(roots: number[]): SearchScope {
    const scoped = roots.length < this.#repositories.length;
    const reader = new SearchReader(this.#store, roots);
    const counts = new GenerationCache<number>(1);
    const ids = new GenerationCache<BigInt64Array>(1);
    const idSet = new GenerationCache<ReadonlySet<number>>(1);
    const elementCount = scoped
      ? () => counts.get(this.#store.generation, 'n', () => reader.elementCount())
      : this.#indexElements;
    const elementIds = (generation: number) =>
      ids.get(generation, 'ids', () => BigInt64Array.from(reader.elementIds(), BigInt));
    return {
      roots,
      scoped,
      reader,
      lexical: new LexicalSearch(reader, elementCount),
      elementCount,
      elementIds,
      elementSet: (generation) =>
        idSet.get(generation, 'ids', () => new Set(Array.from(elementIds(generation), Number))),
    };
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

/**
 * How deep the k-NN of a search goes (`depth` candidates, as the
 * repositories searched would be searched indexed alone). Scoped to some
 * repositories, FAISS searches their vectors only (`restricted`); an addon
 * too old to restrict a search fetches deeper and keeps the scope's hits
 * (`inScope`), up to `kept`.
 */
export function planKnn(
  scope: SearchScope,
  vectors: VectorIndex,
  generation: number,
  depth: number,
): { restricted?: BigInt64Array | undefined; inScope?: ReadonlySet<number> | undefined; wanted: number; kept: number } {
  const ntotal = vectors.ntotal;
  if (!scope.scoped) return { wanted: Math.min(ntotal, depth), kept: depth };
  if (vectors.restrictable) {
    const restricted = scope.elementIds(generation);
    return { restricted, wanted: Math.min(restricted.length, depth), kept: depth };
  }
  const inScope = scope.elementSet(generation);
  return { inScope, wanted: Math.min(ntotal, FILTERED_OVERFETCH * depth), kept: Math.min(inScope.size, depth) };
}
