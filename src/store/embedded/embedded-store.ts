/**
 * The embedded index as a Store (../store.ts): a directory holding a SQLite database and the
 * FAISS file derived from it, for one machine, no server. Each call opens what it needs and
 * closes it again; searches read through search-store.ts, runs write through store-run.ts.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchStore } from '../reads.js';
import type { Repository } from '../rows.js';
import type {
  DroppedIndex,
  DroppedRepository,
  IndexPreview,
  WriterClaim,
  SeedResult,
  Store,
  StoreCapabilities,
  StoreContents,
  StoreRun,
} from '../store.js';
import { DATABASE_FILE } from './database.js';
import { dropIndex } from './drop.js';
import { dropRepository } from './drop-repository.js';
import { copyIndex } from './index-copy.js';
import { IndexStore } from './index-store.js';
import { EmbeddedPreview } from './preview.js';
import { EmbeddedSearchStore, type EmbeddedStoreOptions } from './search-store.js';
import { EmbeddedStoreRun } from './store-run.js';
import { listVectorFiles } from './vector-files.js';

/** Whether a directory holds an embedded index (its database). */
export function isIndexDirectory(directory: string): boolean {
  return existsSync(join(directory, DATABASE_FILE));
}

export class EmbeddedStore implements Store {
  readonly location: string;
  /** It owns its directory: it can be deleted whole, previewed read-only, and started as a copy of another. */
  readonly capabilities: StoreCapabilities = { seedFromCopy: true, preview: true, drop: true };
  readonly #options: EmbeddedStoreOptions;

  constructor(indexDir: string, options: EmbeddedStoreOptions = {}) {
    this.location = indexDir;
    this.#options = options;
  }

  exists(): boolean {
    return isIndexDirectory(this.location);
  }

  /** No directory yet: the first run makes it, with nothing in it. */
  startsCold(): boolean {
    return !existsSync(this.location);
  }

  openSearch(): Promise<SearchStore> {
    return EmbeddedSearchStore.open(this.location, this.#options);
  }

  beginRun(start: WriterClaim): Promise<StoreRun> {
    return EmbeddedStoreRun.begin(this.location, start, this.#options);
  }

  async contents(): Promise<StoreContents> {
    const indexDir = this.location;
    const store = IndexStore.open(indexDir, { readonly: true });
    try {
      const vectorFile = listVectorFiles(indexDir).at(-1);
      return {
        location: indexDir,
        shared: false,
        repositories: store.repositories.withCounts(),
        files: store.fileSummaries(),
        embedder: store.embedder,
        embedderHost: store.meta.embedderHost,
        lastRun: store.meta.lastRun,
        generation: store.generation,
        elements: store.elementCount,
        vectorIndex: {
          description: store.meta.indexDescription,
          file: vectorFile?.path ?? null,
          fileGeneration: vectorFile?.generation ?? null,
        },
        sizeBytes: {
          database: sizeOf(join(indexDir, DATABASE_FILE)) + sizeOf(join(indexDir, `${DATABASE_FILE}-wal`)),
          vectors: vectorFile ? sizeOf(vectorFile.path) : 0,
        },
      };
    } finally {
      store.close();
    }
  }

  async repositories(): Promise<Repository[]> {
    const store = IndexStore.open(this.location, { readonly: true });
    try {
      return store.repositories.all();
    } finally {
      store.close();
    }
  }

  dropRepository(name: string, options: { waitMs?: number } = {}): Promise<DroppedRepository> {
    return dropRepository(this.location, name, options);
  }

  drop(options: { waitMs?: number } = {}): Promise<DroppedIndex> {
    return dropIndex(this.location, options);
  }

  preview(): IndexPreview | undefined {
    return EmbeddedPreview.openIfPresent(this.location);
  }

  seedFrom(source: string): Promise<SeedResult> {
    return copyIndex(source, this.location);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
