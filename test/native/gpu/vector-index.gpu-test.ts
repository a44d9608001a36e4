/**
 * The searcher's side of the GPU: a VectorIndex with device 'gpu' searches a
 * copy on the GPU that answers as the CPU index does, kept level with the
 * database as it changes (additions added to the copy, a removal makes it
 * again), and concurrent queries answered together.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeGpu } from './gpu-addon.js';
import { Indexer } from '../../../src/indexing/indexer.js';
import { FaissIndex } from '../../../src/index.js';
import { SearchBatcher } from '../../../src/native/search-batcher.js';
import { openIndex } from '../../../src/store/embedded/open-index.js';
import type { VectorIndexEvent } from '../../../src/store/embedded/vector-file.js';
import { SAMPLE_FILES, tempRepo, type TempRepo } from '../../helpers/repo.js';
import { clusteredVectors, normalizeRows, randomVectors } from '../../helpers/vectors.js';
import { expectSameNeighbours } from './same-neighbours.js';

let repo: TempRepo;
let indexer: Indexer;
beforeAll(async () => {
  repo = tempRepo(SAMPLE_FILES);
  indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
});
afterAll(() => repo.cleanup());

describeGpu('VectorIndex on a GPU', () => {
  it("device 'gpu': searches go to a GPU copy that answers as the CPU index, and follow the database's changes", async () => {
    const events: VectorIndexEvent[] = [];
    const opened = await openIndex(indexer.indexDir, {
      device: 'gpu',
      gpuMinVectors: 1,
      onEvent: (e) => events.push(e),
    });
    let vectors = opened.vectors;
    expect(events.filter((e) => e.type === 'index-placed')).toEqual([
      expect.objectContaining({ device: 'gpu', reason: expect.stringMatching(/^on GPU 0/) }),
    ]);
    expect(vectors.searchDevice).toBe('gpu');
    const d = vectors.index.d;
    const queries = normalizeRows(randomVectors(16, d, 3), d);
    const compare = async () => {
      const k = Math.min(5, vectors.ntotal);
      const rows = Array.from({ length: 16 }, (_, i) => queries.subarray(i * d, (i + 1) * d));
      const onGpu = await Promise.all(rows.map((row) => vectors.search(row, k)));
      for (const [i, row] of rows.entries())
        expectSameNeighbours(
          onGpu[i]!,
          await vectors.index.search(row, k, vectors.nprobe ? { nprobe: vectors.nprobe } : {}),
        );
    };
    await compare();
    // An addition, then a removal, committed by the indexer; the open index catches up.
    repo.write(
      'src/extra.ts',
      '/** Formats a price. */\nexport function formatPrice(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n',
    );
    await indexer.run();
    vectors = await vectors.refresh(opened.store, opened.embedder, (e) => events.push(e));
    expect(vectors.searchDevice).toBe('gpu');
    await compare();
    repo.remove('src/extra.ts');
    await indexer.run();
    vectors = await vectors.refresh(opened.store, opened.embedder, (e) => events.push(e));
    expect(vectors.searchDevice).toBe('gpu');
    await compare();
    vectors.close();
    opened.store.close();
  });

  it('SearchBatcher over a GPU index: 32 concurrent queries, two FAISS calls, the same answers', async () => {
    const d = 768;
    const index = await FaissIndex.create({ dimension: d, device: 'gpu' });
    await index.add(clusteredVectors(50_000, d, 1));
    const queries = clusteredVectors(32, d, 2);
    const batcher = new SearchBatcher(index);
    const rows = Array.from({ length: 32 }, (_, i) => queries.subarray(i * d, (i + 1) * d));
    const results = await Promise.all(rows.map((row) => batcher.search(row, 10)));
    expect(batcher.stats).toEqual({ calls: 2, queries: 32, largestBatch: 31 });
    for (const [i, row] of rows.entries()) expectSameNeighbours(results[i]!, await index.search(row, 10));
    index.close();
  });
});
