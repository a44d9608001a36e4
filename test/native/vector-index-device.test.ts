/**
 * VectorIndex's `device` option on a machine without a GPU: the CPU path is
 * unchanged by default, 'auto' stays on the CPU and says why, 'gpu' fails with
 * the reason, and VectorIndex.search (batched) answers as the index does.
 * The GPU side (a copy that searches use, kept level with the database) runs
 * in test/native/gpu/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { gpuInfo } from '../../src/index.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import type { VectorIndexEvent, VectorIndexOptions } from '../../src/store/embedded/vector-file.js';
import { SAMPLE_FILES, tempRepo, type TempRepo } from '../helpers/repo.js';
import { normalizeRows, randomVectors } from '../helpers/vectors.js';

let repo: TempRepo;
let indexDir: string;
beforeAll(async () => {
  repo = tempRepo(SAMPLE_FILES);
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  indexDir = indexer.indexDir;
});
afterAll(() => repo.cleanup());

async function opened(options: VectorIndexOptions) {
  const events: VectorIndexEvent[] = [];
  const index = await openIndex(indexDir, { ...options, onEvent: (event) => events.push(event) });
  return { index, placed: events.filter((event) => event.type === 'index-placed') };
}

describe("VectorIndex's device", () => {
  it('by default searches stay on the CPU and nothing is placed', async () => {
    const { index, placed } = await opened({});
    expect(placed).toEqual([]);
    expect(index.vectors.searchDevice).toBe('cpu');
    index.close();
  });

  it("'auto' without a GPU stays on the CPU, and says why once", async () => {
    const { index, placed } = await opened({ device: 'auto', gpuMinVectors: 1 });
    expect(placed).toEqual([
      { type: 'index-placed', device: 'cpu', vectors: index.vectors.ntotal, reason: gpuInfo().reason },
    ]);
    expect(index.vectors.searchDevice).toBe('cpu');
    index.close();
  });

  it('below gpuMinVectors nothing is tried, whatever the device', async () => {
    const { index, placed } = await opened({ device: 'gpu', gpuMinVectors: 1_000_000 });
    expect(placed).toEqual([]);
    expect(index.vectors.searchDevice).toBe('cpu');
    index.close();
  });

  it("'gpu' without a GPU fails with FaissError GPU and the reason", async () => {
    await expect(openIndex(indexDir, { device: 'gpu', gpuMinVectors: 1 })).rejects.toMatchObject({
      name: 'FaissError',
      code: 'GPU',
      message: expect.stringContaining(gpuInfo().reason),
    });
  });

  it('search() answers as the index does with its nprobe, concurrent calls batched', async () => {
    const { index } = await opened({ device: 'auto', gpuMinVectors: 1 });
    const vectors = index.vectors;
    const d = vectors.index.d;
    const k = Math.min(5, vectors.ntotal);
    const queries = normalizeRows(randomVectors(8, d, 5), d);
    const row = (i: number) => queries.subarray(i * d, (i + 1) * d);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => vectors.search(row(i), k)));
    for (let i = 0; i < 8; i++) {
      const expected = await vectors.index.search(row(i), k, vectors.nprobe ? { nprobe: vectors.nprobe } : {});
      expect(results[i]!.labels).toEqual(expected.labels);
    }
    index.close();
  });
});
