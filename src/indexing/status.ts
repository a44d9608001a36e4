/**
 * What an index holds and how far it is behind the files: for
 * `oc-vector-index --status`, the MCP server's `index_status`, and anyone
 * deciding whether to re-index. Read-only; compares sizes and mtimes (no
 * file is read), and scans the root for files not indexed yet.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash } from '../files/hash.js';
import { scanRoot } from '../files/scan.js';
import { DATABASE_FILE } from '../store/database.js';
import { IndexStore, UNTRUSTED_MTIME } from '../store/store.js';
import { listVectorFiles } from '../store/vector-file.js';
import type { LastRun } from '../store/meta.js';

export interface IndexStatus {
  root: string;
  indexDir: string;
  /** With `host`, the server it was asked at (an Ollama URL, an OpenAI-compatible base URL) when the index was last updated. */
  embedder: { id: string; dimension: number; host?: string } | null;
  lastRun: LastRun | null;
  generation: number;
  files: { indexed: number; skipped: number; failed: number };
  elements: number;
  languages: Record<string, { files: number; elements: number }>;
  vectorIndex: { description: string; file: string | null; fileGeneration: number | null };
  /** Files that differ from what was indexed: modified (size or mtime), deleted, or new. */
  stale: { modified: string[]; deleted: string[]; added: string[] };
  /** Skipped and failed files with their reason. */
  problems: { path: string; status: 'skipped' | 'failed'; reason: string }[];
  sizeBytes: { database: number; vectors: number };
}

export interface StatusOptions {
  /** Look for modified, deleted and new files (default true). */
  checkFiles?: boolean;
  signal?: AbortSignal;
}

export async function indexStatus(indexDir: string, options: StatusOptions = {}): Promise<IndexStatus> {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    const root = store.roots().values().next().value ?? indexDir;
    const files = store.fileSummaries();
    const counts = { indexed: 0, skipped: 0, failed: 0 };
    const languages: IndexStatus['languages'] = {};
    const problems: IndexStatus['problems'] = [];
    for (const file of files) {
      counts[file.status]++;
      if (file.status !== 'indexed')
        problems.push({ path: file.path, status: file.status, reason: file.error ?? file.status });
      else {
        const entry = (languages[file.language ?? 'text'] ??= { files: 0, elements: 0 });
        entry.files++;
        entry.elements += file.elements;
      }
    }
    const stale: IndexStatus['stale'] = { modified: [], deleted: [], added: [] };
    if (options.checkFiles !== false) {
      for (const file of files) {
        try {
          const path = join(root, file.path);
          const info = statSync(path);
          // An mtime of -1: the file changed too close to its indexing to trust the time; its content decides.
          const changed =
            info.size !== file.size ||
            (file.mtimeMs === UNTRUSTED_MTIME
              ? contentHash(readFileSync(path)) !== file.hash
              : info.mtimeMs !== file.mtimeMs);
          if (changed) stale.modified.push(file.path);
        } catch {
          stale.deleted.push(file.path);
        }
      }
      const known = new Set(files.map((file) => file.path));
      try {
        for (const file of await scanRoot(root, options.signal ? { signal: options.signal } : {}))
          if (!known.has(file.path)) stale.added.push(file.path);
      } catch {
        // The root is gone: every file shows up as deleted already.
      }
    }
    const vectorFile = listVectorFiles(indexDir).at(-1);
    return {
      root,
      indexDir,
      embedder: store.embedder
        ? { ...store.embedder, ...(store.meta.embedderHost ? { host: store.meta.embedderHost } : {}) }
        : null,
      lastRun: store.meta.lastRun,
      generation: store.generation,
      files: counts,
      elements: store.elementCount,
      languages,
      vectorIndex: {
        description: store.meta.indexDescription,
        file: vectorFile?.path ?? null,
        fileGeneration: vectorFile?.generation ?? null,
      },
      stale,
      problems,
      sizeBytes: {
        database: sizeOf(join(indexDir, DATABASE_FILE)) + sizeOf(join(indexDir, `${DATABASE_FILE}-wal`)),
        vectors: vectorFile ? sizeOf(vectorFile.path) : 0,
      },
    };
  } finally {
    store.close();
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
