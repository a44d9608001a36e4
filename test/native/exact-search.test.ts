import { afterEach, describe, expect, it } from 'vitest';
import { FaissIndex, getNumThreads, setNumThreads } from '../../src/index.js';
import { bruteForce, randomVectors, row } from '../helpers/vectors.js';

/**
 * Compares FAISS's answer with a brute-force JavaScript computation. Ids must
 * match exactly except where two candidates are tied within float error, in
 * which case the distances must still match.
 */
async function expectExact(n: number, d: number, nq: number, k: number, metric: 'ip' | 'l2') {
  const base = randomVectors(n, d, n * 31 + d);
  const queries = randomVectors(nq, d, n * 17 + d + 1);
  const index = await FaissIndex.create({ dimension: d, metric });
  await index.add(base);
  const result = await index.search(queries, k);
  const expected = bruteForce(base, queries, d, k, metric);
  expect(result.nq).toBe(nq);
  for (let q = 0; q < nq; q++) {
    const got = row(result.labels, k, q);
    const gotDistances = Array.from(result.distances.subarray(q * k, (q + 1) * k));
    const want = expected[q]!;
    for (let j = 0; j < k; j++) {
      expect(gotDistances[j]).toBeCloseTo(want.distances[j]!, 3);
      const tolerance = 1e-4 * Math.max(1, Math.abs(want.distances[j]!));
      if (got[j] !== want.labels[j]) {
        // A tie: the id FAISS chose must be exactly as close as the expected one.
        const neighbour = want.distances[j + 1] ?? want.distances[j - 1]!;
        expect(Math.abs(neighbour - want.distances[j]!)).toBeLessThan(tolerance);
      }
    }
  }
  index.close();
}

describe('exact search (Flat) equals brute force', () => {
  const threads = getNumThreads();
  afterEach(() => setNumThreads(threads));

  for (const metric of ['ip', 'l2'] as const) {
    it.each([
      [1, 1, 1, 1],
      [7, 3, 2, 7],
      [1_000, 16, 1, 10],
      [2_000, 64, 25, 10], // 25 queries: FAISS's BLAS path
      [5_000, 128, 5, 20],
      [3_000, 300, 1, 100],
    ])(`${metric}: n=%i d=%i nq=%i k=%i`, async (n, d, nq, k) => {
      await expectExact(n, d, nq, k, metric);
    });

    // 20,000 x 64 floats is past the threshold where a single query is split
    // across threads: the sliced search must give the same answer.
    it(`${metric}: one query over a database searched in slices, on 1 and on 2+ threads`, async () => {
      setNumThreads(Math.max(2, threads));
      await expectExact(20_000, 64, 1, 10, metric);
      setNumThreads(1);
      await expectExact(20_000, 64, 1, 10, metric);
    });

    // FAISS 1.14.2 and later split a single query across threads themselves
    // from ntotal / threads >= 10,000 (here 25,000 rows a slice on 2 threads):
    // inside a slice that split must not scan only part of the rows.
    it(`${metric}: one query over 50,000 vectors on 2 threads equals the exact answer`, async () => {
      setNumThreads(2);
      await expectExact(50_000, 32, 1, 10, metric);
    });
  }

  it('returns the same neighbours for a batch as for its queries one by one', async () => {
    const d = 32;
    const base = randomVectors(4_000, d, 5);
    const queries = randomVectors(40, d, 6);
    const index = await FaissIndex.create({ dimension: d, metric: 'l2' });
    await index.add(base);
    const batch = await index.search(queries, 5);
    for (let q = 0; q < 40; q++) {
      const single = await index.search(queries.subarray(q * d, (q + 1) * d), 5);
      expect(Array.from(single.labels)).toEqual(row(batch.labels, 5, q).map(BigInt));
    }
  });

  it('numbers vectors sequentially across several adds', async () => {
    const index = await FaissIndex.create({ dimension: 2 });
    await index.add(new Float32Array([1, 0]));
    await index.add(new Float32Array([0, 1, -1, 0]));
    expect(index.ntotal).toBe(3);
    const { labels } = await index.search(new Float32Array([-1, 0]), 1);
    expect(labels[0]).toBe(2n);
    expect(Array.from(await index.reconstruct(1))).toEqual([0, 1]);
  });

  it('maps caller ids through an IDMap2 and reconstructs by id', async () => {
    const d = 8;
    const base = randomVectors(50, d, 9);
    const ids = Array.from({ length: 50 }, (_, i) => 1_000_000_007 * (i + 1));
    const index = await FaissIndex.create({ dimension: d, ids: true, metric: 'l2' });
    await index.addWithIds(base, ids);
    const { labels } = await index.search(base.subarray(7 * d, 8 * d), 1);
    expect(labels[0]).toBe(BigInt(ids[7]!));
    expect(Array.from(await index.reconstruct(ids[7]!))).toEqual(Array.from(base.subarray(7 * d, 8 * d)));
  });
});
