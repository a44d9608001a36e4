/**
 * Where each index type goes with device 'auto' and 'gpu', and what it reports
 * there: Flat and IVF move to the GPU with their own kind (so nprobe works),
 * HNSW stays on the CPU and says why.
 */
import { expect, it } from 'vitest';
import { describeGpu } from './gpu-addon.js';
import { FaissError, FaissIndex, gpuInfo } from '../../../src/index.js';
import { randomVectors } from '../../helpers/vectors.js';

const d = 64;
const vectors = randomVectors(4096, d, 1);

describeGpu('placement on a GPU', () => {
  it('gpuInfo(): the GPU build sees a device and gives no reason', () => {
    expect(gpuInfo()).toMatchObject({ compiled: true, devices: expect.any(Number), reason: '' });
    expect(gpuInfo().devices).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['Flat', false, 'flat'],
    ['Flat', true, 'flat'],
    ['IVF64,Flat', false, 'ivf'],
    ['IVF64,Flat', true, 'ivf'],
    ['IVF64,SQ8', false, 'ivf'],
    ['IVF64,PQ16', false, 'ivf'],
  ] as const)("%s (ids: %s) moves to the GPU with 'auto', kind %s", async (description, ids, kind) => {
    const index = await FaissIndex.create({ dimension: d, description, ids, device: 'auto' });
    expect({ device: index.device, kind: index.kind, supportsRemove: index.supportsRemove }).toEqual({
      device: 'gpu',
      kind,
      supportsRemove: false,
    });
    expect(index.deviceReason).toMatch(/^on GPU 0 of \d+$/);
    if (!index.isTrained) await index.train(vectors);
    if (ids)
      await index.addWithIds(
        vectors,
        Array.from({ length: 4096 }, (_, i) => 10 * i),
      );
    else await index.add(vectors);
    expect(index.ntotal).toBe(4096);
    const { labels } = await index.search(vectors.subarray(0, 4 * d), 5, kind === 'ivf' ? { nprobe: 8 } : {});
    expect(labels).toHaveLength(20);
    index.close();
  });

  it("HNSW stays on the CPU with 'auto' and says why; 'gpu' refuses it with GPU", async () => {
    const hnsw = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', device: 'auto' });
    expect(hnsw.device).toBe('cpu');
    expect(hnsw.kind).toBe('hnsw');
    expect(hnsw.deviceReason).toMatch(/FAISS could not move this index to the GPU: .*not implemented on GPU/);
    const error = await FaissIndex.create({ dimension: d, description: 'HNSW32,Flat', device: 'gpu' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FaissError);
    expect((error as FaissError).code).toBe('GPU');
    expect((error as FaissError).message).toMatch(/not implemented on GPU/);
    hnsw.close();
  });

  it("an index read from a file or a buffer goes where it is asked, and 'cpu' keeps it there", async () => {
    const cpu = await FaissIndex.create({ dimension: d, ids: true });
    await cpu.addWithIds(
      vectors,
      Array.from({ length: 4096 }, (_, i) => i + 7),
    );
    const bytes = await cpu.toBuffer();
    for (const [device, expected] of [
      ['gpu', 'gpu'],
      ['auto', 'gpu'],
      ['cpu', 'cpu'],
    ] as const) {
      const loaded = await FaissIndex.fromBuffer(bytes, { device });
      expect([loaded.device, loaded.kind, loaded.hasIds, loaded.ntotal]).toEqual([expected, 'flat', true, 4096]);
      loaded.close();
    }
    cpu.close();
  });
});
