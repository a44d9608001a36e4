/**
 * search(queries, k, { allowed }): the k nearest neighbours among a set of ids,
 * as an index of those vectors alone would find them (issue 27: a search
 * scoped to one repository of a shared index). Exact for Flat, for HNSW below
 * 1/16 of the index and for IVF below nprobe/nlist of it; FAISS's filtered
 * search, with recall close to an index of the subset alone, above.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FaissIndex, getNumThreads, setNumThreads, type KnnResult } from '../../src/index.js';
import { SearchBatcher } from '../../src/native/search-batcher.js';
import { loadAddon } from '../../src/native/addon.js';
import { toAllowedIds } from '../../src/native/validate.js';
import { bruteForce, clusteredVectors, randomVectors, recallAtK, row } from '../helpers/vectors.js';
import { rejection } from '../helpers/rejection.js';

type Metric = 'ip' | 'l2';

/** Rows `rows` of `vectors`, in that order. */
function pick(vectors: Float32Array, d: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * d);
  rows.forEach((r, j) => out.set(vectors.subarray(r * d, (r + 1) * d), j * d));
  return out;
}

/** Every `step`-th row from `offset`. */
function everyNth(n: number, step: number, offset = 0): number[] {
  return Array.from({ length: Math.ceil((n - offset) / step) }, (_, i) => offset + i * step).filter((r) => r < n);
}

/** `count` distinct rows of n, scattered (a fixed pseudo-random choice), ascending. */
function scattered(n: number, count: number, seed: number): number[] {
  const chosen = new Set<number>();
  let x = seed;
  while (chosen.size < count) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    chosen.add(x % n);
  }
  return [...chosen].sort((a, b) => a - b);
}

/**
 * The result equals brute force over `subset` (labels mapped through `ids`),
 * except where two candidates are tied within float error; rows past the
 * subset's size are -1.
 */
function expectBruteForce(
  result: KnnResult,
  base: Float32Array,
  queries: Float32Array,
  d: number,
  subset: readonly number[],
  ids: (row: number) => number,
  metric: Metric,
) {
  const { k, nq } = result;
  const want = bruteForce(pick(base, d, subset), queries, d, Math.min(k, subset.length), metric);
  for (let q = 0; q < nq; q++) {
    const got = row(result.labels, k, q);
    const expected = want[q]!;
    for (let j = 0; j < k; j++) {
      if (j >= expected.labels.length) {
        expect(got[j]).toBe(-1);
        continue;
      }
      const distance = result.distances[q * k + j]!;
      expect(distance).toBeCloseTo(expected.distances[j]!, 3);
      if (got[j] !== ids(subset[expected.labels[j]!]!)) {
        // A tie: FAISS's choice must be as close as the expected one.
        const tolerance = 1e-4 * Math.max(1, Math.abs(expected.distances[j]!));
        const neighbour = expected.distances[j + 1] ?? expected.distances[j - 1]!;
        expect(Math.abs(neighbour - expected.distances[j]!)).toBeLessThan(tolerance);
      }
    }
  }
}

/** Results equal, label for label, allowing swaps between distances tied within float error. */
function expectSameNeighbours(got: KnnResult, want: KnnResult) {
  expect(got.nq).toBe(want.nq);
  expect(got.k).toBe(want.k);
  for (let i = 0; i < got.labels.length; i++) {
    const tolerance = 1e-5 * Math.max(1, Math.abs(want.distances[i]!));
    expect(Math.abs(got.distances[i]! - want.distances[i]!)).toBeLessThanOrEqual(tolerance);
    if (got.labels[i] !== want.labels[i]) {
      const tied = [want.distances[i - 1], want.distances[i + 1]].some(
        (other) => other !== undefined && Math.abs(other - want.distances[i]!) <= 2 * tolerance,
      );
      expect(tied, `label ${i}: ${got.labels[i]} instead of ${want.labels[i]}`).toBe(true);
    }
  }
}

/** Distinct labels of a result (no -1), per query. */
function labelsOf(result: KnnResult, q: number): bigint[] {
  return Array.from(result.labels.subarray(q * result.k, (q + 1) * result.k)).filter((l) => l >= 0n);
}

const threads = getNumThreads();
afterEach(() => setNumThreads(threads));

describe('Flat: equal to brute force over the allowed vectors', () => {
  for (const metric of ['ip', 'l2'] as const) {
    for (const withIds of [false, true]) {
      const id = withIds ? (r: number) => 5 * r + 3 : (r: number) => r;
      it(`${metric}, ${withIds ? 'own ids (IDMap2)' : 'positions'}: 1, 5 and 30 queries, scattered and contiguous sets`, async () => {
        const d = 24;
        const n = 3_000;
        const base = randomVectors(n, d, 11);
        const queries = randomVectors(30, d, 12);
        const index = await FaissIndex.create({ dimension: d, metric, ids: withIds });
        if (withIds)
          await index.addWithIds(
            base,
            Array.from({ length: n }, (_, r) => id(r)),
          );
        else await index.add(base);
        for (const subset of [scattered(n, 300, 1), everyNth(n, 1).slice(1_000, 1_040), [17]]) {
          const allowed = subset.map(id);
          for (const nq of [1, 5, 30]) {
            const q = queries.subarray(0, nq * d);
            const result = await index.search(q, 10, { allowed });
            expectBruteForce(result, base, q, d, subset, id, metric);
          }
        }
        index.close();
      });
    }
  }

  // 20,000 x 64: a set this large is split across threads for one query; 25
  // queries go through FAISS's BLAS search over blocks of copied rows.
  it.each(['ip', 'l2'] as const)('%s: a large set, on one and on two threads, single and batched', async (metric) => {
    const d = 64;
    const n = 40_000;
    const base = randomVectors(n, d, 21);
    const queries = randomVectors(25, d, 22);
    const index = await FaissIndex.create({ dimension: d, metric });
    await index.add(base);
    const subset = everyNth(n, 2, 1);
    for (const t of [Math.max(2, threads), 1]) {
      setNumThreads(t);
      for (const nq of [1, 25]) {
        const q = queries.subarray(0, nq * d);
        expectBruteForce(await index.search(q, 10, { allowed: subset }), base, q, d, subset, (r) => r, metric);
      }
    }
    index.close();
  });

  // 5,000 allowed rows of 1,024 floats are two blocks of the batched search
  // (4,096 rows each): the blocks' lists are merged.
  it('a batch over a set larger than one block equals an index of the set alone', async () => {
    const d = 1024;
    const n = 6_000;
    const base = randomVectors(n, d, 31);
    const queries = randomVectors(24, d, 32);
    const index = await FaissIndex.create({ dimension: d, metric: 'l2', ids: true });
    await index.addWithIds(
      base,
      Array.from({ length: n }, (_, r) => r),
    );
    const subset = scattered(n, 5_000, 3);
    const alone = await FaissIndex.create({ dimension: d, metric: 'l2', ids: true });
    await alone.addWithIds(pick(base, d, subset), subset);
    expectSameNeighbours(await index.search(queries, 20, { allowed: subset }), await alone.search(queries, 20));
    index.close();
    alone.close();
  });

  it('after removals: removed ids never come back, the rest as an index of the set alone', async () => {
    const d = 16;
    const n = 2_000;
    const base = randomVectors(n, d, 41);
    const queries = randomVectors(4, d, 42);
    const index = await FaissIndex.create({ dimension: d, metric: 'l2', ids: true });
    await index.addWithIds(
      base,
      Array.from({ length: n }, (_, r) => r),
    );
    await index.removeIds(everyNth(n, 3));
    const allowed = everyNth(n, 2);
    const kept = allowed.filter((r) => r % 3 !== 0);
    const result = await index.search(queries, 15, { allowed });
    expectBruteForce(result, base, queries, d, kept, (r) => r, 'l2');
    index.close();
  });
});

describe('HNSW', () => {
  const d = 32;
  const n = 12_000;
  const k = 10;
  const base = clusteredVectors(n, d, 51);
  const queries = clusteredVectors(100, d, 52);

  it('a set under 1/16 of the index is searched exactly (own ids too)', async () => {
    for (const withIds of [false, true]) {
      const id = withIds ? (r: number) => r + 1_000_000 : (r: number) => r;
      const index = await FaissIndex.create({ dimension: d, description: 'HNSW16,Flat', metric: 'ip', ids: withIds });
      if (withIds)
        await index.addWithIds(
          base,
          Array.from({ length: n }, (_, r) => id(r)),
        );
      else await index.add(base);
      const subset = scattered(n, 500, 5);
      const q = queries.subarray(0, 10 * d);
      expectBruteForce(await index.search(q, k, { allowed: subset.map(id) }), base, q, d, subset, id, 'ip');
      index.close();
    }
  });

  it('a quarter of the index: recall close to an HNSW of that quarter alone, and efSearch still applies', async () => {
    const index = await FaissIndex.create({ dimension: d, description: 'HNSW16,Flat', metric: 'ip' });
    await index.add(base);
    const subset = everyNth(n, 4, 2);
    const vectors = pick(base, d, subset);
    const flat = await FaissIndex.create({ dimension: d, metric: 'ip', ids: true });
    await flat.addWithIds(vectors, subset);
    const truth = await flat.search(queries, k);
    const alone = await FaissIndex.create({ dimension: d, description: 'HNSW16,Flat', metric: 'ip', ids: true });
    await alone.addWithIds(vectors, subset);
    const aloneRecall = recallAtK((await alone.search(queries, k, { efSearch: 64 })).labels, truth.labels, 100, k);
    const restricted = await index.search(queries, k, { efSearch: 64, allowed: subset });
    for (let q = 0; q < 100; q++) for (const label of labelsOf(restricted, q)) expect(Number(label) % 4).toBe(2);
    const recall = recallAtK(restricted.labels, truth.labels, 100, k);
    expect(recall).toBeGreaterThanOrEqual(Math.min(0.95, aloneRecall - 0.05));
    const narrow = recallAtK(
      (await index.search(queries, k, { efSearch: 10, allowed: subset })).labels,
      truth.labels,
      100,
      k,
    );
    expect(narrow).toBeLessThanOrEqual(recall);
    for (const i of [index, flat, alone]) i.close();
  });
});

describe('IVF', () => {
  const d = 32;
  const n = 16_000;
  const k = 10;
  const base = clusteredVectors(n, d, 61);
  const queries = clusteredVectors(100, d, 62);

  /** IVF64 numbered with the caller's ids (add_with_ids, no id map: the store's IVF) or under an id map. */
  async function ivf(withMap: boolean, id: (r: number) => number): Promise<FaissIndex> {
    const index = await FaissIndex.create({ dimension: d, description: 'IVF64,Flat', metric: 'l2', ids: withMap });
    await index.train(base);
    await index.addWithIds(
      base,
      Array.from({ length: n }, (_, r) => id(r)),
    );
    return index;
  }

  for (const withMap of [false, true]) {
    it(`${withMap ? 'under an id map' : "the caller's ids, no id map"}: a set within nprobe/nlist of the index is searched exactly`, async () => {
      const id = (r: number) => 7 * r + 100;
      const index = await ivf(withMap, id);
      // nprobe 8 of 64 lists: up to 1/8 of the index is searched exactly; 1,500 rows is less.
      const subset = scattered(n, 1_500, 7);
      const q = queries.subarray(0, 20 * d);
      expectBruteForce(await index.search(q, k, { nprobe: 8, allowed: subset.map(id) }), base, q, d, subset, id, 'l2');
      // The index's own nprobe (1) when none is given: a set of 200 (< 1/64) is still exact.
      const small = subset.slice(0, 200);
      expectBruteForce(await index.search(q, k, { allowed: small.map(id) }), base, q, d, small, id, 'l2');
      index.close();
    });
  }

  it('half of the index with nprobe 8: only allowed ids, recall close to an IVF of that half alone', async () => {
    const index = await ivf(false, (r) => r);
    const subset = everyNth(n, 2);
    const vectors = pick(base, d, subset);
    const flat = await FaissIndex.create({ dimension: d, metric: 'l2', ids: true });
    await flat.addWithIds(vectors, subset);
    const truth = await flat.search(queries, k);
    const alone = await FaissIndex.create({ dimension: d, description: 'IVF64,Flat', metric: 'l2' });
    await alone.train(base);
    await alone.addWithIds(vectors, subset);
    const aloneRecall = recallAtK((await alone.search(queries, k, { nprobe: 8 })).labels, truth.labels, 100, k);
    const restricted = await index.search(queries, k, { nprobe: 8, allowed: subset });
    for (let q = 0; q < 100; q++) for (const label of labelsOf(restricted, q)) expect(label % 2n).toBe(0n);
    expect(recallAtK(restricted.labels, truth.labels, 100, k)).toBeGreaterThanOrEqual(aloneRecall - 0.03);
    for (const i of [index, flat, alone]) i.close();
  });

  it('after removals under an id map (positions renumbered): the set still means the same vectors', async () => {
    const index = await ivf(true, (r) => r);
    await index.removeIds(everyNth(n, 5));
    const subset = scattered(n, 400, 9).filter((r) => r % 5 !== 0);
    const q = queries.subarray(0, 10 * d);
    const result = await index.search(q, k, { nprobe: 8, allowed: scattered(n, 400, 9) });
    expectBruteForce(result, base, q, d, subset, (r) => r, 'l2');
    index.close();
  });
});

describe('edge cases', () => {
  const d = 8;
  const n = 200;
  const base = randomVectors(n, d, 71);
  const queries = randomVectors(3, d, 72);

  async function flatWithIds(): Promise<FaissIndex> {
    const index = await FaissIndex.create({ dimension: d, metric: 'ip', ids: true });
    await index.addWithIds(
      base,
      Array.from({ length: n }, (_, r) => 10 * r),
    );
    return index;
  }

  it('an empty set: every row -1, distances as FAISS pads them, on Flat, HNSW and IVF', async () => {
    const indexes = [
      await flatWithIds(),
      await FaissIndex.create({ dimension: d, description: 'HNSW8,Flat', metric: 'l2' }),
      await FaissIndex.create({ dimension: d, description: 'IVF4,Flat', metric: 'l2' }),
    ];
    await indexes[1]!.add(base);
    await indexes[2]!.train(base);
    await indexes[2]!.add(base);
    for (const index of indexes) {
      for (const allowed of [new BigInt64Array(0), []]) {
        const result = await index.search(queries, 4, { allowed });
        expect(result.labels).toEqual(new BigInt64Array(12).fill(-1n));
        const missing = index.metric === 'ip' ? -3.4028234663852886e38 : 3.4028234663852886e38;
        expect(Array.from(result.distances)).toEqual(new Array(12).fill(missing));
      }
      index.close();
    }
  });

  it('ids not in the index are ignored; a set of only such ids finds nothing', async () => {
    const index = await flatWithIds();
    const result = await index.search(queries, 3, { allowed: [5, 10, 15, 20, 10_000, 2n ** 62n] });
    for (let q = 0; q < 3; q++) expect(labelsOf(result, q).sort()).toEqual([10n, 20n]);
    expect((await index.search(queries, 3, { allowed: [1, 2, 3, 4_000] })).labels).toEqual(
      new BigInt64Array(9).fill(-1n),
    );
    // Without an id map, ids are positions: those past ntotal are not in it.
    const plain = await FaissIndex.create({ dimension: d });
    await plain.add(base);
    const past = await plain.search(queries, 2, { allowed: [199, 200, 5_000] });
    for (let q = 0; q < 3; q++) expect(labelsOf(past, q)).toEqual([199n]);
    index.close();
    plain.close();
  });

  it('k above the allowed count, and above ntotal: rows padded with -1', async () => {
    const index = await flatWithIds();
    const result = await index.search(queries, 500, { allowed: [30, 40, 50] });
    expect(result.labels).toHaveLength(1_500);
    for (let q = 0; q < 3; q++) {
      expect(labelsOf(result, q).sort()).toEqual([30n, 40n, 50n]);
      expect(result.labels.subarray(q * 500 + 3, (q + 1) * 500)).toEqual(new BigInt64Array(497).fill(-1n));
    }
    // Without a set, k > ntotal stays an error.
    await expect(index.search(queries, 500)).rejects.toThrow(/k is 500 but the index holds only 200 vectors/);
    index.close();
  });

  it('an empty index with a set: -1 rows instead of an error', async () => {
    const index = await FaissIndex.create({ dimension: d, ids: true });
    expect((await index.search(queries, 2, { allowed: [1, 2] })).labels).toEqual(new BigInt64Array(6).fill(-1n));
    await expect(index.search(queries, 2)).rejects.toThrow(/the index is empty/);
    index.close();
  });

  it('unsorted ids with repeats give the same answer as sorted ones; the caller’s array is left as it was', async () => {
    const index = await flatWithIds();
    const shuffled = new BigInt64Array([500n, 30n, 1_990n, 30n, 720n, 500n]);
    const before = shuffled.slice();
    const a = await index.search(queries, 4, { allowed: shuffled });
    const b = await index.search(queries, 4, { allowed: [30, 500, 720, 1_990] });
    expect(a.labels).toEqual(b.labels);
    expect(shuffled).toEqual(before);
    expect(Array.from(toAllowedIds([3, 1, 2, 1, 3]))).toEqual([1n, 2n, 3n]);
    const sorted = new BigInt64Array([1n, 2n, 9n]);
    expect(toAllowedIds(sorted)).toBe(sorted);
    index.close();
  });

  it('a Flat search without a set is unchanged', async () => {
    const index = await flatWithIds();
    const plain = await index.search(queries, 5);
    const everything = await index.search(queries, 5, { allowed: Array.from({ length: n }, (_, r) => 10 * r) });
    expectSameNeighbours(everything, plain);
    index.close();
  });
});

describe('concurrency', () => {
  it('restricted and unrestricted searches in parallel, beside adds, give what they give alone', async () => {
    const d = 32;
    const n = 20_000;
    const base = randomVectors(n, d, 81);
    const queries = randomVectors(12, d, 82);
    const index = await FaissIndex.create({ dimension: d, metric: 'l2', ids: true });
    await index.addWithIds(
      base,
      Array.from({ length: n }, (_, r) => r),
    );
    const sets = [everyNth(n, 3), scattered(n, 50, 11), everyNth(n, 1).slice(5_000, 9_000), undefined];
    const call = (i: number) =>
      index.search(queries.subarray(i * d, (i + 1) * d), 10, sets[i % 4] ? { allowed: sets[i % 4]! } : {});
    const sequential: KnnResult[] = [];
    for (let i = 0; i < 12; i++) sequential.push(await call(i));
    // Vectors far from every query (ids past the set's), added while the searches run.
    const far = new Float32Array(500 * d).fill(1_000);
    const [parallel] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, (_, i) => call(i))),
      index.addWithIds(
        far,
        Array.from({ length: 500 }, (_, r) => n + r),
      ),
    ]);
    parallel.forEach((result, i) => expect(result.labels).toEqual(sequential[i]!.labels));
    index.close();
  });

  it('SearchBatcher: callers with the same set share a call, other sets get their own, each gets its own answer', async () => {
    const d = 16;
    const n = 5_000;
    const base = randomVectors(n, d, 91);
    const queries = randomVectors(8, d, 92);
    const index = await FaissIndex.create({ dimension: d, metric: 'ip' });
    await index.add(base);
    const batcher = new SearchBatcher(index);
    const row = (i: number) => queries.subarray(i * d, (i + 1) * d);
    const evens = everyNth(n, 2);
    const odds = new BigInt64Array(everyNth(n, 2, 1).map(BigInt));
    const params = [undefined, { allowed: evens }, { allowed: odds }, { allowed: evens.slice() }, { allowed: odds }];
    const pending = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => batcher.search(row(i), 5, params[i % 5]));
    odds.fill(0n); // queued requests keep their own copy of the set
    const results = await Promise.all(pending);
    const oddsAgain = everyNth(n, 2, 1);
    const expected = [
      undefined,
      { allowed: evens },
      { allowed: oddsAgain },
      { allowed: evens },
      { allowed: oddsAgain },
    ];
    for (let i = 0; i < 8; i++) {
      const want = await index.search(row(i), 5, expected[i % 5]);
      expect(results[i]!.labels).toEqual(want.labels);
    }
    // Row 0 alone; then the oldest queued and those like it: evens (rows 1, 3, 6), odds (2, 4, 7), none (5).
    expect(batcher.stats.calls).toBe(4);
    index.close();
  });
});

describe('bad arguments', () => {
  const d = 8;
  const queries = randomVectors(1, d, 101);

  it.each([
    ['a string', 'abc', /allowed must be a BigInt64Array or an array of integers, got "abc"/],
    ['null', null, /allowed must be a BigInt64Array or an array of integers, got null/],
    [
      'a Float64Array',
      new Float64Array([1, 2]),
      /allowed must be a BigInt64Array or an array of integers, got a Float64Array/,
    ],
    ['a negative id', [1, -1], /allowed\[1\] must be a non-negative integer id, got number -1/],
    ['a negative bigint', new BigInt64Array([4n, -2n]), /allowed\[1\] is -2; ids must be >= 0/],
    ['a fraction', [0.5], /allowed\[0\] must be a non-negative integer id, got number 0.5/],
    ['NaN', [Number.NaN], /allowed\[0\] must be a non-negative integer id/],
  ])('%s: INVALID_ARGUMENT naming allowed', async (_name, allowed, message) => {
    const index = await FaissIndex.create({ dimension: d });
    await index.add(randomVectors(10, d, 1));
    const error = await rejection(() => index.search(queries, 1, { allowed: allowed as never }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
    index.close();
  });

  it('the raw addon checks what the facade sorts: order, repeats, negatives and the type', async () => {
    const index = await FaissIndex.create({ dimension: d });
    await index.add(randomVectors(10, d, 1));
    const native = await loadAddon().NativeIndex.create(d, 'Flat', 'ip', false, 'cpu');
    await native.add(randomVectors(10, d, 1));
    const cases: [unknown, RegExp][] = [
      [
        new BigInt64Array([3n, 1n]),
        /allowed must be sorted ascending without repeats: allowed\[1\] is 1 after allowed\[0\] 3/,
      ],
      [new BigInt64Array([1n, 1n]), /allowed\[1\] is 1 after allowed\[0\] 1/],
      [new BigInt64Array([-1n]), /allowed\[0\] is -1; ids must be >= 0/],
      [[1, 2], /allowed must be a BigInt64Array/],
      [new BigUint64Array([1n]), /allowed must be a BigInt64Array/],
    ];
    for (const [allowed, message] of cases) {
      const error = await rejection(async () =>
        native.search(queries, 1, undefined, undefined, allowed as BigInt64Array),
      );
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    // null and undefined mean no set.
    expect((await native.search(queries, 1, undefined, undefined, null as never)).labels).toHaveLength(1);
    native.close();
    index.close();
  });

  it('a closed index, and an index type FAISS cannot restrict: INDEX_CLOSED, UNSUPPORTED', async () => {
    const closed = await FaissIndex.create({ dimension: d });
    closed.close();
    expect((await rejection(() => closed.search(queries, 1, { allowed: [1] }))).code).toBe('INDEX_CLOSED');
    const pq = await FaissIndex.create({ dimension: d, description: 'PQ2np', metric: 'l2' });
    const base = randomVectors(2_000, d, 2);
    await pq.train(base);
    await pq.add(base);
    const error = await rejection(() => pq.search(queries, 3, { allowed: [1, 2, 3] }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toMatch(
      /this index \(PQ2np\) cannot restrict a search to allowed ids.*use a Flat, HNSW or IVF index/,
    );
    expect((await pq.search(queries, 3)).labels).toHaveLength(3);
    pq.close();
  });

  it('the addon says it takes a set (the facade refuses one for an older addon, which would ignore it)', () => {
    expect(loadAddon().features).toContain('searchAllowed');
  });

  it('efSearch on a Flat index is still refused with a set', async () => {
    const index = await FaissIndex.create({ dimension: d });
    await index.add(randomVectors(10, d, 1));
    const error = await rejection(() => index.search(queries, 1, { efSearch: 8, allowed: [1] }));
    expect(error.message).toMatch(/efSearch applies to HNSW indexes/);
    index.close();
  });
});
