/**
 * The embedded index as a dry run reads it (../store.ts's IndexPreview): the database opened
 * read-only, so that a dry run writes nothing, not even the index directory.
 */
import type { AnalysisCache } from '../../analysis/llm/cache.js';
import { StoreError } from '../errors.js';
import type { EmbedderRecord, FileRow } from '../rows.js';
import type { IndexPreview } from '../store.js';
import { IndexStore } from './index-store.js';

export class EmbeddedPreview implements IndexPreview {
  readonly #store: IndexStore;

  private constructor(store: IndexStore) {
    this.#store = store;
  }

  /** The index in `indexDir`, when there is one. */
  static openIfPresent(indexDir: string): EmbeddedPreview | undefined {
    try {
      return new EmbeddedPreview(IndexStore.open(indexDir, { readonly: true }));
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'NOT_FOUND')) throw error;
      return undefined;
    }
  }

  get embedder(): EmbedderRecord | undefined {
    return this.#store.embedder;
  }

  repositoryId(root: string, repo: string | undefined): number | undefined {
    const { repositories } = this.#store;
    return (repo !== undefined ? repositories.byName(repo) : repositories.byRoot(root))?.id;
  }

  files(rootId: number): Map<string, FileRow> {
    return this.#store.files(rootId);
  }

  elementHashes(fileId: number): string[] {
    return this.#store.elementsOfFile(fileId).map((element) => element.documentHash);
  }

  hasEmbedding(embedder: string, documentHash: string): boolean {
    return this.#store.getEmbedding(embedder, documentHash) !== undefined;
  }

  analysisCache(): AnalysisCache {
    return this.#store.analysisCache();
  }

  close(): void {
    this.#store.close();
  }
}
