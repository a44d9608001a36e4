/**
 * A one-shot search maps a large index's IVF file (VectorIndexOptions.mapFile)
 * when the file is as the store wrote it: the same answers as a file read
 * whole; a file changed since is read whole and verified; an indexer's later
 * commit is replayed onto a copy read whole.
 */
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { EmbeddedSearchStore } from '../../src/store/embedded/search-store.js';
import { listVectorFiles } from '../../src/store/embedded/vector-files.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

function modules(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    files[`src/m${i}.ts`] =
      `/** Module ${i}: computes value ${i}. */\nexport function value${i}(x: number): number {\n  return x + ${i};\n}\n\nexport class Holder${i} {\n  readonly amount = ${i};\n}\n`;
  return files;
}

const shown = (results: { path: string; startLine: number; score: number }[]) =>
  results.map((r) => `${r.path}:${r.startLine} ${r.score}`);

async function searchWith(indexDir: string, mapFile: boolean, query: string) {
  const store = await EmbeddedSearchStore.open(indexDir, { vectorIndex: { mapFile } });
  const searcher = await Searcher.open({ store });
  try {
    const response = await searcher.search(query, { snippet: false, mode: 'vector' });
    return { mapped: store.vectorIndex!.index.mapped, results: shown(response.results) };
  } finally {
    searcher.close();
    await store.close();
  }
}

/** 450 elements indexed as IVF (the threshold lowered): the repository, and the options that index it. */
function ivfRepository() {
  const repo = (owned.repo = tempRepo(modules(150)));
  const options = {
    path: repo.root,
    embedder: 'builtin' as const,
    llm: false,
    vectorIndex: { approximateThreshold: 200 },
  };
  return { repo, options };
}

describe('mapFile', () => {
  it('maps an IVF file as the store wrote it, answers as the file read whole, and reads a changed file whole', async () => {
    const { repo, options } = ivfRepository();
    const summary = await new Indexer(options).run();
    expect(summary.index.description).toMatch(/^IVF/);
    const indexDir = join(repo.root, '.ocvector');
    const query = 'computes value 42';
    const whole = await searchWith(indexDir, false, query);
    const mapped = await searchWith(indexDir, true, query);
    expect([whole.mapped, mapped.mapped]).toEqual([false, true]);
    expect(mapped.results).toEqual(whole.results);

    // Touched since its checkpoint: the stat no longer vouches for it, so it is read whole (and its checksum verified).
    const [file] = listVectorFiles(indexDir);
    utimesSync(file!.path, new Date(), new Date(Date.now() + 5_000));
    const touched = await searchWith(indexDir, true, query);
    expect(touched.mapped).toBe(false);
    expect(touched.results).toEqual(whole.results);
  });

  it('replays an indexer commit made after the file onto a copy read whole', async () => {
    const { repo, options } = ivfRepository();
    await new Indexer(options).run();
    const indexDir = join(repo.root, '.ocvector');
    const store = await EmbeddedSearchStore.open(indexDir, { vectorIndex: { mapFile: true } });
    const searcher = await Searcher.open({ store });
    try {
      expect(store.vectorIndex!.index.mapped).toBe(true);
      const before = store.vectorIndex!.ntotal;
      repo.write(
        'src/extra.ts',
        '/** Module 1000: computes value 1000. */\nexport function value1000(x: number): number {\n  return x;\n}\n',
      );
      await new Indexer(options).run();
      const query = 'computes value 1000';
      const response = await searcher.search(query, { snippet: false, mode: 'vector' });
      // Brought level on a copy read whole: one vector more, the same answers as a store that never mapped.
      expect(store.vectorIndex!.index.mapped).toBe(false);
      expect(store.vectorIndex!.ntotal).toBe(before + 1);
      expect(shown(response.results)).toEqual((await searchWith(indexDir, false, query)).results);
    } finally {
      searcher.close();
      await store.close();
    }
  });
});
