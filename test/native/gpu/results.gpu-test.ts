/**
 * A GPU index answers as the CPU one does: exact search identical but for
 * float rounding, IVF with the same nprobe the same lists (and nprobe is no
 * longer stuck at 1), and what is written from the GPU reads back anywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeGpu } from './gpu-addon.js';
import { FaissIndex, type Metric } from '../../../src/index.js';
import { clusteredVectors, recallAtK } from '../../helpers/vectors.js';
import { expectSameNeighbours } from './same-neighbours.js';

const d = 64;
const n = 20_000;
const nq = 200;
const k = 10;
const base = clusteredVectors(n, d, 1);
const queries = clusteredVectors(nq, d, 2);
const dir = mkdtempSync(join(tmpdir(), 'ocvector-gpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeGpu('GPU results equal the CPU results', () => {
  it.each(['ip', 'l2'] as Metric[])('Flat, %s, with and without ids: the same neighbours', async (metric) => {
    for (const ids of [false, true]) {
      const cpu = await FaissIndex.create({ dimension: d, metric, ids });
      if (ids)
        await cpu.addWithIds(
          base,
          Array.from({ length: n }, (_, i) => 3 * i + 1),
        );
      else await cpu.add(base);
      const gpu = await cpu.copyTo('gpu');
      expect(gpu.device).toBe('gpu');
      expectSameNeighbours(await gpu.search(queries, k), await cpu.search(queries, k));
      // One query at a time too (another path on both sides).
      for (let q = 0; q < 5; q++) {
        const one = queries.subarray(q * d, (q + 1) * d);
        expectSameNeighbours(await gpu.search(one, k), await cpu.search(one, k));
      }
      cpu.close();
      gpu.close();
    }
  });

  it('IVF: nprobe reaches the GPU (recall grows with it) and gives the CPU lists', async () => {
    const cpu = await FaissIndex.create({ dimension: d, description: 'IVF256,Flat', metric: 'ip' });
    await cpu.train(base);
    await cpu.add(base);
    const exact = await FaissIndex.create({ dimension: d, metric: 'ip' });
    await exact.add(base);
    const truth = await exact.search(queries, k);
    const gpu = await cpu.copyTo('gpu');
    expect(gpu.kind).toBe('ivf');
    const recall: Record<number, number> = {};
    for (const nprobe of [1, 16, 256]) {
      const onGpu = await gpu.search(queries, k, { nprobe });
      expectSameNeighbours(onGpu, await cpu.search(queries, k, { nprobe }));
      recall[nprobe] = recallAtK(onGpu.labels, truth.labels, nq, k);
    }
    // nprobe 1 was all a GPU IVF index could do before (recall@10 0.07 on 20k × 64).
    expect(recall[16]!).toBeGreaterThan(recall[1]!);
    expect(recall[256]!).toBeGreaterThan(0.99);
    for (const index of [cpu, exact, gpu]) index.close();
  });

  it('an IVF index trained and filled on the GPU searches like its CPU copy', async () => {
    const gpu = await FaissIndex.create({ dimension: d, description: 'IVF128,Flat', device: 'gpu' });
    expect(gpu.isTrained).toBe(false);
    await gpu.train(base);
    await gpu.addWithIds(
      base,
      Array.from({ length: n }, (_, i) => i + 100),
    );
    const cpu = await gpu.copyTo('cpu');
    expect([cpu.device, cpu.kind, cpu.ntotal]).toEqual(['cpu', 'ivf', n]);
    expectSameNeighbours(await gpu.search(queries, k, { nprobe: 32 }), await cpu.search(queries, k, { nprobe: 32 }));
    gpu.close();
    cpu.close();
  });

  it('write and read: a GPU index written to a file or a buffer reads back on either device, the same', async () => {
    const gpu = await FaissIndex.create({ dimension: d, ids: true, device: 'gpu' });
    await gpu.addWithIds(
      base,
      Array.from({ length: n }, (_, i) => 2 * i),
    );
    const expected = await gpu.search(queries, k);
    const path = join(dir, 'gpu.ocvx');
    await gpu.write(path);
    const bytes = await gpu.toBuffer();
    for (const loaded of [
      await FaissIndex.read(path),
      await FaissIndex.read(path, { device: 'gpu' }),
      await FaissIndex.fromBuffer(bytes, { device: 'gpu' }),
    ]) {
      expect([loaded.hasIds, loaded.ntotal]).toEqual([true, n]);
      expectSameNeighbours(await loaded.search(queries, k), expected);
      loaded.close();
    }
    gpu.close();
  });

  it('reconstruct: exact on a GPU Flat index; a GPU IVF index says to use a CPU copy', async () => {
    const flat = await FaissIndex.create({ dimension: d, ids: true, device: 'gpu' });
    await flat.addWithIds(
      base.subarray(0, 100 * d),
      Array.from({ length: 100 }, (_, i) => i + 500),
    );
    expect(await flat.reconstruct(542)).toEqual(base.slice(42 * d, 43 * d));
    const ivf = await FaissIndex.create({ dimension: d, description: 'IVF16,Flat', device: 'gpu' });
    await ivf.train(base.subarray(0, 1000 * d));
    await ivf.add(base.subarray(0, 1000 * d));
    await expect(ivf.reconstruct(3)).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringMatching(/reconstruct on a GPU index works for Flat only.*copyTo\('cpu'\)/),
    });
    flat.close();
    ivf.close();
  });

  it('copyTo between devices keeps every vector and id', async () => {
    const cpu = await FaissIndex.create({ dimension: d, ids: true });
    await cpu.addWithIds(
      base,
      Array.from({ length: n }, (_, i) => 9 * i),
    );
    const expected = await cpu.search(queries, k);
    const gpu = await cpu.copyTo('gpu');
    const gpu2 = await gpu.copyTo('gpu');
    const back = await gpu2.copyTo('cpu');
    for (const index of [gpu, gpu2, back]) expectSameNeighbours(await index.search(queries, k), expected);
    expect([gpu2.device, back.device]).toEqual(['gpu', 'cpu']);
    for (const index of [cpu, gpu, gpu2, back]) index.close();
  });
});
