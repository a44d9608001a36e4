/**
 * What a GPU index cannot do is refused up front, with a message that says
 * what to do: removals (FAISS's GPU indexes cannot remove), searches
 * restricted to allowed ids (they take no IDSelector), and k or nprobe past
 * FAISS's GPU limit (2048), in the facade and in the addon itself.
 */
import { expect, it } from 'vitest';
import { describeGpu } from './gpu-addon.js';
import { FaissError, FaissIndex } from '../../../src/index.js';
import { loadAddon } from '../../../src/native/addon.js';
import { GPU_MAX_K } from '../../../src/native/validate.js';
import { randomVectors } from '../../helpers/vectors.js';

const d = 16;
const n = 5000;
const vectors = randomVectors(n, d, 1);
const query = vectors.subarray(0, d);

async function failure(call: () => unknown): Promise<FaissError> {
  const error = await (async () => call())().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed').toBeInstanceOf(FaissError);
  return error as FaissError;
}

describeGpu('GPU limits', () => {
  it.each([
    ['Flat', true],
    ['IVF32,Flat', false],
  ] as const)(
    'removeIds on a GPU %s index: UNSUPPORTED, GPU indexes cannot remove, and what to do',
    async (description, ids) => {
      const index = await FaissIndex.create({ dimension: d, description, ids, device: 'gpu' });
      if (!index.isTrained) await index.train(vectors);
      await index.addWithIds(
        vectors,
        Array.from({ length: n }, (_, i) => i),
      );
      const error = await failure(() => index.removeIds([1, 2, 3]));
      expect(error.code).toBe('UNSUPPORTED');
      expect(error.message).toMatch(
        /is on a GPU, and FAISS's GPU indexes cannot remove vectors: remove them from a CPU copy \(copyTo\('cpu'\)\)/,
      );
      expect(index.ntotal).toBe(n);
      // What the message says to do works.
      const cpu = await index.copyTo('cpu');
      expect(await cpu.removeIds([1, 2, 3])).toBe(3);
      const again = await cpu.copyTo('gpu');
      expect([again.device, again.ntotal]).toEqual(['gpu', n - 3]);
      for (const each of [index, cpu, again]) each.close();
    },
  );

  it('a search restricted to allowed ids: UNSUPPORTED from the facade and the addon; the CPU copy answers it', async () => {
    const index = await FaissIndex.create({ dimension: d, ids: true, device: 'gpu' });
    await index.addWithIds(
      vectors,
      Array.from({ length: n }, (_, i) => i),
    );
    const error = await failure(() => index.search(query, 5, { allowed: [1, 2, 3] }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toMatch(
      /is on a GPU, and FAISS's GPU indexes cannot restrict a search to allowed ids: search the CPU index it was copied from/,
    );
    const native = await loadAddon().NativeIndex.create(d, 'Flat', 'ip', false, 'gpu');
    await native.add(vectors);
    const nativeError = await failure(() => native.search(query, 5, undefined, undefined, new BigInt64Array([1n])));
    expect(nativeError.code).toBe('UNSUPPORTED');
    native.close();
    const cpu = await index.copyTo('cpu');
    const { labels } = await cpu.search(query, 5, { allowed: [0, 1, 2] });
    expect(labels.slice(0, 3).sort()).toEqual(new BigInt64Array([0n, 1n, 2n]));
    expect(labels[3]).toBe(-1n);
    for (const each of [index, cpu]) each.close();
  });

  it(`k up to ${GPU_MAX_K} works; past it INVALID_ARGUMENT names the limit, before any GPU call`, async () => {
    const index = await FaissIndex.create({ dimension: d, device: 'gpu' });
    await index.add(vectors);
    const { labels } = await index.search(query, GPU_MAX_K);
    expect(labels).toHaveLength(GPU_MAX_K);
    expect(labels[0]).toBe(0n);
    const error = await failure(() => index.search(query, GPU_MAX_K + 1));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/k is 2049, more than the 2048 neighbours a GPU index returns \(FAISS's GPU limit\)/);
    // The same index on the CPU takes it.
    const cpu = await index.copyTo('cpu');
    expect((await cpu.search(query, GPU_MAX_K + 1)).labels).toHaveLength(GPU_MAX_K + 1);
    cpu.close();
    index.close();
  });

  it('nprobe past the limit is refused on a GPU IVF index; up to it works', async () => {
    const index = await FaissIndex.create({ dimension: d, description: 'IVF4096,Flat', device: 'gpu' });
    await index.train(randomVectors(4096 * 39, d, 2));
    await index.add(vectors);
    expect((await index.search(query, 10, { nprobe: GPU_MAX_K })).labels[0]).toBe(0n);
    const error = await failure(() => index.search(query, 10, { nprobe: GPU_MAX_K + 1 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/nprobe is 2049, more than the 2048 lists a GPU index visits/);
    index.close();
  });

  it('the addon checks k and nprobe itself, with the limit its FAISS was built with', async () => {
    const native = await loadAddon().NativeIndex.create(d, 'IVF16,Flat', 'l2', false, 'gpu');
    await native.train(vectors);
    await native.add(vectors);
    for (const [k, nprobe, message] of [
      [GPU_MAX_K + 1, undefined, /k is 2049, more than the 2048 neighbours a GPU index returns/],
      [10, GPU_MAX_K + 1, /nprobe is 2049, more than the 2048 lists/],
    ] as const) {
      const error = await failure(() => native.search(query, k, undefined, nprobe));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    native.close();
  });
});
