/**
 * What an index holds and how far it is behind the files: for
 * `oc-vector-index --status`, the MCP server's `index_status`, and anyone
 * deciding whether to re-index. Read-only; compares sizes and mtimes (no
 * file is read), and scans the root for files not indexed yet.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash } from '../files/hash.js';
import { isDirectory } from '../files/root.js';
import { isInside, scanRoot } from '../files/scan.js';
import { openStore } from '../store/open.js';
import { unknownRepository } from '../store/repository-name.js';
import { type LastRun, UNTRUSTED_MTIME } from '../store/rows.js';
import type { Store, StoreContents } from '../store/store.js';

/** One repository of the index. */
export interface RepositoryStatus {
  name: string;
  root: string;
  /** The commit it was indexed at, when a git checkout. */
  commit: string | null;
  /** When its last run ended (ISO 8601), null before one ended. */
  indexedAt: string | null;
  files: number;
  elements: number;
}

export interface IndexStatus {
  /** The first repository's root (the only one, in an index of one repository). */
  root: string;
  indexDir: string;
  /** The repositories the status covers: all of the index's, or those asked for. */
  repositories: RepositoryStatus[];
  /** With `host`, the server it was asked at (an Ollama URL, an OpenAI-compatible base URL) when the index was last updated. */
  embedder: { id: string; dimension: number; host?: string } | null;
  lastRun: LastRun | null;
  generation: number;
  files: { indexed: number; skipped: number; failed: number };
  elements: number;
  languages: Record<string, { files: number; elements: number }>;
  vectorIndex: { description: string; file: string | null; fileGeneration: number | null };
  /** Files that differ from what was indexed: modified (size or mtime), deleted, or new (`<repo>:<path>` among several repositories). */
  stale: { modified: string[]; deleted: string[]; added: string[] };
  /** Skipped and failed files with their reason. */
  problems: { path: string; status: 'skipped' | 'failed'; reason: string }[];
  sizeBytes: { database: number; vectors: number };
}

export interface StatusOptions {
  /** Look for modified, deleted and new files (default true). */
  checkFiles?: boolean;
  /**
   * Only these repositories, by name (default all): every count, file and
   * problem is theirs, and nothing of another repository is shown.
   */
  repos?: readonly string[];
  signal?: AbortSignal;
}

/** The status of the embedded index in `indexDir`. */
export async function indexStatus(indexDir: string, options: StatusOptions = {}): Promise<IndexStatus> {
  return storeStatus(await openStore(undefined, { indexDir }), options);
}

/** The status of a store: its repositories, and its files checked against the ones on this machine. */
export async function storeStatus(store: Store, options: StatusOptions = {}): Promise<IndexStatus> {
  return statusOf(await store.contents(), options);
}

async function statusOf(source: StoreContents, options: StatusOptions): Promise<IndexStatus> {
  const repositories = source.repositories.filter(
    (repository) => !options.repos || options.repos.includes(repository.name),
  );
  if (options.repos) {
    const known = new Set(repositories.map((repository) => repository.name));
    const unknown = options.repos.find((name) => !known.has(name));
    if (unknown !== undefined) throw unknownRepository(unknown);
  }
  const rootOf = new Map(repositories.map((repository) => [repository.id, repository.root]));
  const nameOf = new Map(repositories.map((repository) => [repository.id, repository.name]));
  // Among several repositories, a path says whose it is: `web:src/app.ts`.
  const shown = (rootId: number, path: string) => (rootOf.size > 1 ? `${nameOf.get(rootId)}:${path}` : path);
  const root = repositories[0]?.root ?? source.location;
  const files = source.files.filter((file) => rootOf.has(file.rootId));
  const counts = { indexed: 0, skipped: 0, failed: 0 };
  const languages: IndexStatus['languages'] = {};
  const problems: IndexStatus['problems'] = [];
  for (const file of files) {
    counts[file.status]++;
    if (file.status !== 'indexed')
      problems.push({ path: shown(file.rootId, file.path), status: file.status, reason: file.error ?? file.status });
    else {
      const entry = (languages[file.language ?? 'text'] ??= { files: 0, elements: 0 });
      entry.files++;
      entry.elements += file.elements;
    }
  }
  const stale: IndexStatus['stale'] = { modified: [], deleted: [], added: [] };
  if (options.checkFiles !== false) {
    // A repository not checked out on this machine (a shared store built elsewhere) has nothing to compare.
    const here = new Set(
      [...rootOf].filter(([, path]) => !source.shared || isDirectory(path)).map(([rootId]) => rootId),
    );
    for (const file of files) {
      if (!here.has(file.rootId)) continue;
      const repositoryRoot = rootOf.get(file.rootId)!;
      const path = join(repositoryRoot, file.path);
      // A path the index records leading out of its root (`..`, absolute) is data, never a file to look at.
      if (!isInside(repositoryRoot, path)) {
        stale.deleted.push(shown(file.rootId, file.path));
        continue;
      }
      try {
        const info = statSync(path);
        // An mtime of -1: the file changed too close to its indexing to trust the time; its content decides.
        const changed =
          info.size !== file.size ||
          (file.mtimeMs === UNTRUSTED_MTIME
            ? contentHash(readFileSync(path)) !== file.hash
            : info.mtimeMs !== file.mtimeMs);
        if (changed) stale.modified.push(shown(file.rootId, file.path));
      } catch {
        stale.deleted.push(shown(file.rootId, file.path));
      }
    }
    for (const [rootId, repositoryRoot] of rootOf) {
      if (!here.has(rootId)) continue;
      const known = new Set(files.filter((file) => file.rootId === rootId).map((file) => file.path));
      try {
        for (const file of await scanRoot(repositoryRoot, options.signal ? { signal: options.signal } : {}))
          if (!known.has(file.path)) stale.added.push(shown(rootId, file.path));
      } catch {
        // The root is gone: every file shows up as deleted already.
      }
    }
  }
  return {
    root,
    indexDir: source.location,
    repositories: repositories.map((repository) => ({
      name: repository.name,
      root: repository.root,
      commit: repository.commit,
      indexedAt: repository.indexedAt === null ? null : new Date(repository.indexedAt).toISOString(),
      files: repository.files,
      elements: repository.elements,
    })),
    embedder: source.embedder
      ? { ...source.embedder, ...(source.embedderHost ? { host: source.embedderHost } : {}) }
      : null,
    // The last run over the whole index may be another repository's: a scoped status shows each of its own instead (indexedAt).
    lastRun: options.repos ? null : source.lastRun,
    generation: source.generation,
    files: counts,
    elements: options.repos ? repositories.reduce((sum, repository) => sum + repository.elements, 0) : source.elements,
    languages,
    vectorIndex: source.vectorIndex,
    stale,
    problems,
    sizeBytes: source.sizeBytes,
  };
}
