import { beforeAll, describe, expect, it } from 'vitest';
import { FaissIndex, type SearchParams, type KnnResult } from '../../src/index.js';
import { clusteredVectors, normalizeRows, randomVectors, recallAtK, row, slice } from '../helpers/vectors.js';

const d = 128;
const n = 20_000;
const nq = 200;
const k = 10;

async function exactTopK(base: Float32Array, queries: Float32Array): Promise<KnnResult> {
  const flat = await FaissIndex.create({ dimension: d, metric: 'ip' });
  await flat.add(base);
  const truth = await flat.search(queries, k);
  flat.close();
  return truth;
}

/**
 * The wide setting reaches `minRecall`, and the narrow one does worse: proof
 * that the per-call parameter really reaches FAISS.
 */
async function expectRecallGrowsWith(
  index: FaissIndex,
  queries: Float32Array,
  truth: KnnResult,
  narrow: SearchParams,
  wide: SearchParams,
  minRecall: number,
) {
  const recall = async (params: SearchParams) =>
    recallAtK((await index.search(queries, k, params)).labels, truth.labels, nq, k);
  const wideRecall = await recall(wide);
  expect(wideRecall).toBeGreaterThanOrEqual(minRecall);
  expect(await recall(narrow)).toBeLessThan(wideRecall);
}

describe('HNSW recall@10 against exact search (20,000 x 128)', () => {
  // Isotropic random data is HNSW's worst case (no structure to navigate);
  // raw FAISS reaches recall 0.69 at efSearch 64 and 0.96 at 256 on it.
  it('isotropic random data: >= 0.95 at efSearch 256', async () => {
    const base = normalizeRows(randomVectors(n, d, 1), d);
    const queries = normalizeRows(randomVectors(nq, d, 2), d);
    const truth = await exactTopK(base, queries);
    const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', metric: 'ip' });
    await hnsw.add(base);
    await expectRecallGrowsWith(hnsw, queries, truth, { efSearch: 16 }, { efSearch: 256 }, 0.95);
  });

  // Real embeddings are clustered and normalised: HNSW is near-exact cheaply.
  it('clustered, normalised data: >= 0.95 at efSearch 64', async () => {
    const base = clusteredVectors(n, d, 3);
    const queries = clusteredVectors(nq, d, 4);
    const truth = await exactTopK(base, queries);
    const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', metric: 'ip', ids: true });
    await hnsw.addWithIds(
      base,
      Array.from({ length: n }, (_, i) => i),
    );
    const result = await hnsw.search(queries, k, { efSearch: 64 });
    expect(recallAtK(result.labels, truth.labels, nq, k)).toBeGreaterThanOrEqual(0.95);
  });
});

describe('IVF', () => {
  const base = clusteredVectors(n, d, 5);
  const queries = clusteredVectors(nq, d, 6);
  let truth: KnnResult;
  beforeAll(async () => {
    truth = await exactTopK(base, queries);
  });

  it('refuses to add or search before training, then finds neighbours after', async () => {
    const ivf = await FaissIndex.create({ dimension: d, description: 'IVF64,Flat', metric: 'ip' });
    expect(ivf.isTrained).toBe(false);
    await expect(ivf.add(base)).rejects.toMatchObject({ code: 'NOT_TRAINED' });
    await ivf.train(slice(base, d, 0, 64 * 40));
    expect(ivf.isTrained).toBe(true);
    await ivf.add(base);
    await expectRecallGrowsWith(ivf, queries, truth, { nprobe: 1 }, { nprobe: 16 }, 0.95);
  });

  // "np" skips FAISS's polysemous training (about 40 s here, and only used by
  // polysemous search, which is off by default): training takes about 1 s.
  it('IVF with product quantisation trains and ranks the true neighbour near the top', async () => {
    const ivfpq = await FaissIndex.create({ dimension: d, description: 'IVF16,PQ16np', metric: 'l2' });
    await ivfpq.train(slice(base, d, 0, 10_000));
    await ivfpq.add(base);
    // Each query is a database vector: it must come back in its own top 10.
    const self = slice(base, d, 100, 150);
    const result = await ivfpq.search(self, k, { nprobe: 16 });
    let found = 0;
    for (let q = 0; q < 50; q++) if (row(result.labels, k, q).includes(100 + q)) found++;
    expect(found / 50).toBeGreaterThanOrEqual(0.9);
  });
});

describe('removeIds', () => {
  const dim = 16;
  const base = randomVectors(2_000, dim, 7);
  const removed = Array.from({ length: 200 }, (_, i) => i * 10);

  async function expectNeverReturned(index: FaissIndex, params = {}) {
    const before = index.ntotal;
    expect(await index.removeIds(removed)).toBe(removed.length);
    expect(index.ntotal).toBe(before - removed.length);
    // Query with the removed vectors themselves: the closest stored vector
    // would be the removed one if it were still there.
    const queries = new Float32Array(removed.flatMap((id) => Array.from(slice(base, dim, id, id + 1))));
    const result = await index.search(queries, 20, params);
    const gone = new Set(removed.map(BigInt));
    for (const label of result.labels) expect(gone.has(label)).toBe(false);
  }

  it('Flat with caller ids never returns a removed id', async () => {
    const index = await FaissIndex.create({ dimension: dim, ids: true, metric: 'l2' });
    await index.addWithIds(
      base,
      Array.from({ length: 2_000 }, (_, i) => i),
    );
    await expectNeverReturned(index);
    expect(await index.removeIds([removed[0]!])).toBe(0);
  });

  it('IVF never returns a removed id', async () => {
    const index = await FaissIndex.create({ dimension: dim, description: 'IVF8,Flat', metric: 'l2', ids: true });
    await index.train(base);
    await index.addWithIds(
      base,
      Array.from({ length: 2_000 }, (_, i) => i),
    );
    await expectNeverReturned(index, { nprobe: 8 });
  });

  it('IVF with caller ids finds every kept vector under its own id after a removal, and after a round trip', async () => {
    // FAISS's id map compacts itself on removal while the IVF keeps its old
    // positions: vectors after a removed one came back under another id, or as -1.
    const index = await FaissIndex.create({ dimension: dim, description: 'IVF8,Flat', metric: 'l2', ids: true });
    await index.train(base);
    await index.addWithIds(
      base,
      Array.from({ length: 2_000 }, (_, i) => 5_000 + i),
    );
    await index.removeIds(removed.map((i) => 5_000 + i));
    const kept = [1, 11, 999, 1_995, 1_999];
    const queries = new Float32Array(kept.flatMap((i) => Array.from(slice(base, dim, i, i + 1))));
    for (const copy of [index, await FaissIndex.fromBuffer(await index.toBuffer())]) {
      const { labels } = await copy.search(queries, 1, { nprobe: 8 });
      expect([...labels]).toEqual(kept.map((i) => BigInt(5_000 + i)));
    }
    await index.addWithIds(slice(base, dim, 0, 1), [42]);
    expect((await index.search(slice(base, dim, 0, 1), 1, { nprobe: 8 })).labels[0]).toBe(42n);
  });

  it('HNSW rejects removal with a clear error and keeps its vectors', async () => {
    const index = await FaissIndex.create({ dimension: dim, description: 'HNSW16,Flat', ids: true });
    await index.addWithIds(
      base,
      Array.from({ length: 2_000 }, (_, i) => i),
    );
    expect(index.supportsRemove).toBe(false);
    await expect(index.removeIds([1, 2])).rejects.toMatchObject({
      name: 'FaissError',
      code: 'UNSUPPORTED',
      message: expect.stringMatching(/cannot remove/),
    });
    expect(index.ntotal).toBe(2_000);
  });
});
