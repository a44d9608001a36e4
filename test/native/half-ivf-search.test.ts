/**
 * IVF of half-precision codes, searched by the addon's own scan (F16C and
 * FMA; half_ivf_search.cc) rather than FAISS's portable decoding: the same
 * answers as float32 lists over the same vectors and the same lists (one
 * query or many, some lists or all, restricted to allowed ids or not, read
 * whole or mapped), padded as FAISS pads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaissIndex } from '../../src/index.js';
import { roundToHalf } from '../../src/vector/half-precision.js';
import { clusteredVectors } from '../helpers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-half-ivf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const d = 24; // not a multiple of 16: the scan's tail is read too
const count = 3_000;
const base = roundToHalf(clusteredVectors(count, d, 11));
const ids = BigInt64Array.from({ length: count }, (_, i) => BigInt(7 * i + 3));
const queries = roundToHalf(clusteredVectors(12, d, 12));

async function built(description: string): Promise<FaissIndex> {
  const index = await FaissIndex.create({ dimension: d, description, metric: 'ip' });
  await index.train(base); // the same data and FAISS's fixed seed: the same centroids for both
  await index.addWithIds(base, ids);
  return index;
}

function expectSameAnswers(
  got: { labels: BigInt64Array; distances: Float32Array },
  want: { labels: BigInt64Array; distances: Float32Array },
): void {
  expect(got.labels).toEqual(want.labels);
  for (const [i, distance] of got.distances.entries()) expect(distance).toBeCloseTo(want.distances[i]!, 4);
}

describe('IVF of half-precision codes', () => {
  it('answers as float32 lists do: many queries or one, some lists or all', async () => {
    const half = await built('IVF16,SQfp16');
    const float = await built('IVF16,Flat');
    for (const nprobe of [1, 4, 16]) {
      expectSameAnswers(await half.search(queries, 10, { nprobe }), await float.search(queries, 10, { nprobe }));
      const one = queries.subarray(0, d);
      expectSameAnswers(await half.search(one, 10, { nprobe }), await float.search(one, 10, { nprobe }));
    }
    half.close();
    float.close();
  });

  it('keeps a search to allowed ids, padding with -1 past them', async () => {
    const half = await built('IVF16,SQfp16');
    const float = await built('IVF16,Flat');
    const allowed = ids.filter((_, i) => i % 97 === 0);
    const options = { nprobe: 4, allowed };
    const got = await half.search(queries, 40, options);
    expectSameAnswers(got, await float.search(queries, 40, options));
    const allowedSet = new Set(allowed);
    for (const label of got.labels) expect(label === -1n || allowedSet.has(label)).toBe(true);
    expect(got.labels.filter((label) => label === -1n).length).toBeGreaterThan(0);
    half.close();
    float.close();
  });

  it('answers the same from a mapped file', async () => {
    const half = await built('IVF16,SQfp16');
    const path = join(dir, 'half.ocvx');
    await half.write(path);
    const mapped = await FaissIndex.read(path, { mapped: true });
    expectSameAnswers(await mapped.search(queries, 10, { nprobe: 4 }), await half.search(queries, 10, { nprobe: 4 }));
    mapped.close();
    half.close();
  });
});
