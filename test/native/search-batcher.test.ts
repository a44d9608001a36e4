/**
 * SearchBatcher against real FAISS: concurrent searches answered by few FAISS
 * calls, each caller getting what its own call would have returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaissError, FaissIndex, type KnnResult } from '../../src/index.js';
import { SearchBatcher } from '../../src/native/search-batcher.js';
import { randomVectors } from '../helpers/vectors.js';

const d = 32;
const n = 2000;
let flat: FaissIndex;
let ivf: FaissIndex;
const queries = randomVectors(64, d, 2);
const row = (i: number) => queries.subarray(i * d, (i + 1) * d);

beforeAll(async () => {
  const vectors = randomVectors(n, d, 1);
  flat = await FaissIndex.create({ dimension: d, metric: 'l2' });
  await flat.add(vectors);
  ivf = await FaissIndex.create({ dimension: d, description: 'IVF16,Flat', metric: 'l2' });
  await ivf.train(vectors);
  await ivf.add(vectors);
});
afterAll(() => {
  flat.close();
  ivf.close();
});

/** Same neighbours; distances equal but for the last bits (a batch may take FAISS's BLAS path). */
function expectSameResult(actual: KnnResult, expected: KnnResult): void {
  expect({ nq: actual.nq, k: actual.k, labels: actual.labels }).toEqual({
    nq: expected.nq,
    k: expected.k,
    labels: expected.labels,
  });
  for (let i = 0; i < expected.distances.length; i++)
    expect(actual.distances[i]).toBeCloseTo(expected.distances[i]!, 3);
}

describe('SearchBatcher', () => {
  it('a lone search goes to FAISS at once, alone', async () => {
    const batcher = new SearchBatcher(flat);
    expectSameResult(await batcher.search(row(0), 10), await flat.search(row(0), 10));
    expect(batcher.stats).toEqual({ calls: 1, queries: 1, largestBatch: 1 });
  });

  it('32 concurrent searches: the first alone, the other 31 in one call, each answered as on its own', async () => {
    const batcher = new SearchBatcher(flat);
    const results = await Promise.all(Array.from({ length: 32 }, (_, i) => batcher.search(row(i), 10)));
    expect(batcher.stats).toEqual({ calls: 2, queries: 32, largestBatch: 31 });
    for (let i = 0; i < 32; i++) expectSameResult(results[i]!, await flat.search(row(i), 10));
  });

  it('multi-row requests and IVF parameters: rows go back to their caller, nprobe is kept', async () => {
    const batcher = new SearchBatcher(ivf);
    const requests = [
      [0, 3],
      [3, 4],
      [4, 9],
      [9, 10],
    ] as const;
    const results = await Promise.all(
      requests.map(([from, to]) => batcher.search(queries.subarray(from * d, to * d), 5, { nprobe: 4 })),
    );
    expect(batcher.stats.calls).toBe(2);
    for (const [i, [from, to]] of requests.entries())
      expectSameResult(results[i]!, await ivf.search(queries.subarray(from * d, to * d), 5, { nprobe: 4 }));
  });

  it('requests with another k or other parameters get calls of their own', async () => {
    const batcher = new SearchBatcher(ivf);
    const [a, b, c, e] = await Promise.all([
      batcher.search(row(0), 5),
      batcher.search(row(1), 5),
      batcher.search(row(2), 7),
      batcher.search(row(3), 5, { nprobe: 16 }),
    ]);
    expectSameResult(a!, await ivf.search(row(0), 5));
    expectSameResult(b!, await ivf.search(row(1), 5));
    expectSameResult(c!, await ivf.search(row(2), 7));
    expectSameResult(e!, await ivf.search(row(3), 5, { nprobe: 16 }));
    // row 0 alone; then the oldest queued (k 5: row 1) without the others; then k 7; then nprobe 16.
    expect(batcher.stats.calls).toBe(4);
  });

  it('maxBatch caps the rows of one call', async () => {
    const batcher = new SearchBatcher(flat, { maxBatch: 8 });
    await Promise.all(Array.from({ length: 33 }, (_, i) => batcher.search(row(i), 3)));
    expect(batcher.stats).toEqual({ calls: 5, queries: 33, largestBatch: 8 });
  });

  it("one caller's bad row fails that caller only, before anything is queued", async () => {
    const batcher = new SearchBatcher(flat);
    const bad = row(1).slice();
    bad[5] = Number.NaN;
    const good = [batcher.search(row(0), 4), batcher.search(row(2), 4)];
    expect(() => batcher.search(bad, 4)).toThrow(/queries holds NaN at row 0, column 5/);
    expect(() => batcher.search(new Float32Array(d + 1), 4)).toThrow(FaissError);
    expect(() => batcher.search(row(0), 0)).toThrow(/k must be an integer/);
    await expect(Promise.all(good)).resolves.toHaveLength(2);
  });

  it('a failed call rejects every caller in it with its FaissError, and the batcher goes on', async () => {
    const small = await FaissIndex.create({ dimension: d });
    await small.add(randomVectors(5, d, 3));
    const batcher = new SearchBatcher(small);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => batcher.search(row(i), 6)));
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as FaissError;
      expect(reason).toBeInstanceOf(FaissError);
      expect(reason.code).toBe('INVALID_ARGUMENT');
      expect(reason.message).toMatch(/k is 6 but the index holds only 5 vectors/);
    }
    expect((await batcher.search(row(0), 5)).labels).toHaveLength(5);
    small.close();
    await expect(batcher.search(row(0), 5)).rejects.toMatchObject({ code: 'INDEX_CLOSED' });
  });

  it('the caller may reuse its array at once: rows are copied when queued', async () => {
    const batcher = new SearchBatcher(flat);
    const reused = row(0).slice();
    const first = batcher.search(reused, 5);
    const second = batcher.search(reused, 5);
    reused.fill(0);
    const [a, b] = await Promise.all([first, second]);
    const expected = await flat.search(row(0), 5);
    expectSameResult(a, expected);
    expectSameResult(b, expected);
  });
});
