/**
 * reconstructMany: the stored vectors of many ids in one call, which a
 * rebuild reads back from the index it replaces once the database keeps no
 * copy of its own. Exact for Flat, and for IVF of half-precision codes
 * (vectors kept, not residuals); read from a mapped file as from one read
 * whole; ids the index does not hold say so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaissError, FaissIndex } from '../../src/index.js';
import { roundToHalf } from '../../src/vector/half-precision.js';
import { clusteredVectors } from '../helpers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-reconstruct-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const d = 16;
const count = 2_000;
// At half precision, as the store rounds them: an IVF index of half-precision codes keeps them exactly.
const base = roundToHalf(clusteredVectors(count, d, 5));
const ids = Array.from({ length: count }, (_, i) => 10 * i + 1);
const row = (at: number) => base.subarray(at * d, (at + 1) * d);

async function filled(description: string, withIds: boolean): Promise<FaissIndex> {
  const index = await FaissIndex.create({ dimension: d, description, metric: 'ip', ids: withIds });
  await index.train(base);
  await index.addWithIds(base, ids);
  return index;
}

/** Ids asked for: some held (one twice, out of order), one that never was. */
const asked = [ids[1_999]!, 7, ids[0]!, ids[500]!, ids[0]!];
const askedRows = [1_999, -1, 0, 500, 0];

function expectAnswers(answer: { vectors: Float32Array; found: Uint8Array }): void {
  expect([...answer.found]).toEqual(askedRows.map((at) => (at < 0 ? 0 : 1)));
  for (const [i, at] of askedRows.entries()) {
    const got = answer.vectors.subarray(i * d, (i + 1) * d);
    expect([...got]).toEqual(at < 0 ? new Array(d).fill(0) : [...row(at)]);
  }
}

describe('FaissIndex.reconstructMany', () => {
  for (const [description, withIds] of [
    ['Flat', true],
    ['IVF16,Flat', false],
    ['IVF16,SQfp16', false],
  ] as const) {
    it(`gives back the stored vectors of ${description}, exactly, and which ids it lacks`, async () => {
      const index = await filled(description, withIds);
      expectAnswers(await index.reconstructMany(asked));
      index.close();
    });
  }

  it('reads a mapped IVF file without changing it', async () => {
    const index = await filled('IVF16,SQfp16', false);
    const path = join(dir, 'ivf-half.ocvx');
    await index.write(path);
    index.close();
    const mapped = await FaissIndex.read(path, { mapped: true });
    expectAnswers(await mapped.reconstructMany(asked));
    mapped.close();
  });

  it('scores half-precision IVF codes as Flat scores the same vectors', async () => {
    const flat = await filled('Flat', true);
    const half = await filled('IVF16,SQfp16', false);
    const queries = roundToHalf(clusteredVectors(8, d, 6));
    const exact = await flat.search(queries, 10);
    const probed = await half.search(queries, 10, { nprobe: 16 });
    expect(probed.labels).toEqual(exact.labels);
    for (const [i, distance] of probed.distances.entries()) expect(distance).toBeCloseTo(exact.distances[i]!, 5);
    flat.close();
    half.close();
  });

  it('answers an empty list, and refuses an index that keeps no ids', async () => {
    const index = await filled('IVF16,Flat', false);
    const none = await index.reconstructMany([]);
    expect([none.vectors.length, none.found.length]).toEqual([0, 0]);
    index.close();
    const plain = await FaissIndex.create({ dimension: d, description: 'Flat', ids: false });
    await plain.add(base);
    await expect(plain.reconstructMany([1])).rejects.toThrow(/needs an index with ids/);
    await expect(plain.reconstructMany([1])).rejects.toBeInstanceOf(FaissError);
    await expect(plain.reconstructMany(['x' as unknown as number])).rejects.toThrow(/ids/);
    plain.close();
  });
});
