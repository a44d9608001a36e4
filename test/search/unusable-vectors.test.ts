/**
 * An index whose vector side is unusable (it records a dimension FAISS
 * cannot take, as an older version wrote from a server that answered
 * 70,000 dimensions) still answers lexical searches through the real
 * Searcher; a hybrid search answers lexically and says why (`fallback`, as
 * when the native addon cannot load), a vector search is refused
 * (VECTORS_UNAVAILABLE), and the next indexing run repairs it.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer, Searcher, SearchError, type SearchEvent } from '../../src/index.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { cleanedUpAfterEach } from '../helpers/repo.js';
import { searchRepo } from '../helpers/search-repo.js';

const owned = cleanedUpAfterEach();

const QUERY = 'hash a password with a salt';
const PROBLEM =
  /^the index records 70000 dimensions for its embedder ollama:huge-embed, which FAISS cannot index \(1 to 65536\): its vectors cannot be searched; rebuild the index with a working embedder \(oc-vector-index --rebuild\)/;

/** The fixture indexed with the built-in embedder. */
async function indexed() {
  const repo = (owned.repo = searchRepo());
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  return indexer;
}

/** What an older version left after a server answered 70,000 dimensions: that record, and its FAISS file as `file` says. */
function recordHugeEmbedder(indexDir: string, file: 'removed' | 'damaged' | 'kept'): void {
  const store = IndexStore.open(indexDir);
  try {
    store.meta.embedder = { id: 'ollama:huge-embed', dimension: 70_000 };
  } finally {
    store.close();
  }
  for (const name of readdirSync(indexDir).filter((name) => name.endsWith('.ocvx'))) {
    if (file === 'removed') rmSync(join(indexDir, name));
    if (file === 'damaged') writeFileSync(join(indexDir, name), 'not a FAISS index');
  }
}

describe('an index that records a 70,000-dimension embedder', () => {
  it.each(['removed', 'damaged', 'kept'] as const)(
    'FAISS file %s: lexical answers, hybrid falls back with a warning, vector is refused',
    async (file) => {
      const indexer = await indexed();
      recordHugeEmbedder(indexer.indexDir, file);
      const events: SearchEvent[] = [];
      const searcher = await Searcher.open({ indexDir: indexer.indexDir, onEvent: (event) => events.push(event) });
      try {
        const lexical = await searcher.search(QUERY, { mode: 'lexical', k: 3 });
        expect(lexical).toMatchObject({ mode: 'lexical', requestedMode: 'lexical', embedder: 'ollama:huge-embed' });
        expect(lexical.fallback).toBeUndefined();
        expect(lexical.results[0]!.name).toBe('hashPassword');
        expect(lexical.elements).toBeGreaterThan(0);

        const hybrid = await searcher.search(QUERY, { k: 3 });
        expect(hybrid).toMatchObject({ mode: 'lexical', requestedMode: 'hybrid' });
        expect(hybrid.fallback?.reason).toMatch(PROBLEM);
        expect(hybrid.fallback?.reason).toMatch(/; answered by lexical search$/);
        expect(hybrid.results[0]!.name).toBe('hashPassword');
        expect(events).toContainEqual({ type: 'fallback', reason: hybrid.fallback!.reason });

        const refused = await searcher.search(QUERY, { mode: 'vector' }).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(SearchError);
        expect(refused).toMatchObject({ code: 'VECTORS_UNAVAILABLE' });
        expect((refused as Error).message).toMatch(/^vector search is unavailable: the index records 70000 dimensions/);

        expect(await searcher.embedderStatus()).toMatchObject({
          embedder: 'ollama:huge-embed',
          available: false,
          problem: expect.stringMatching(PROBLEM),
        });
      } finally {
        searcher.close();
      }
    },
  );

  it('a searcher kept open falls back when the record turns unusable, and finds the vectors again after a rebuild', async () => {
    const indexer = await indexed();
    const searcher = await Searcher.open({ indexDir: indexer.indexDir });
    try {
      expect((await searcher.search(QUERY, { k: 3 })).mode).toBe('hybrid');

      recordHugeEmbedder(indexer.indexDir, 'kept');
      const degraded = await searcher.search(QUERY, { k: 3 });
      expect(degraded.mode).toBe('lexical');
      expect(degraded.fallback?.reason).toMatch(PROBLEM);
      expect(degraded.results[0]!.name).toBe('hashPassword');

      // The next run cannot use those vectors: it starts afresh with the embedder asked for.
      const rebuilt = await new Indexer({ path: indexer.root, embedder: 'builtin', llm: false }).run();
      expect(rebuilt.embedder).toMatch(/^builtin:/);
      const repaired = await searcher.search(QUERY, { k: 3 });
      expect(repaired).toMatchObject({ mode: 'hybrid', embedder: rebuilt.embedder });
      expect(repaired.fallback).toBeUndefined();
      expect(repaired.results[0]!.signals.vector).toBeDefined();
    } finally {
      searcher.close();
    }
  });
});
