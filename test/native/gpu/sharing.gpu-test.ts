/**
 * One set of FAISS GPU resources per device, shared by every index on it:
 * six small GPU indexes took GPU memory from 535 to 10,147 MiB when each had
 * its own. Indexes that share it may be used concurrently, from several
 * threads, without corrupting each other.
 */
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { FaissIndex, gpuInfo } from '../../../src/index.js';
import { randomVectors } from '../../helpers/vectors.js';
import { GPU_ADDON, describeGpu, deviceMemoryMiB } from './gpu-addon.js';
import { expectSameNeighbours } from './same-neighbours.js';

const d = 32;

describeGpu('shared GPU resources', () => {
  it('six small indexes share one set of resources: memory grows by the first only; freed with the last', async () => {
    expect(gpuInfo().sharedResources).toBe(0);
    const indexes: FaissIndex[] = [];
    const memory: number[] = [];
    for (let i = 0; i < 6; i++) {
      const index = await FaissIndex.create({ dimension: d, device: 'gpu' });
      await index.add(randomVectors(10, d, i));
      await index.search(randomVectors(1, d, 99), 5); // the resources set up
      indexes.push(index);
      memory.push(deviceMemoryMiB());
      expect(gpuInfo().sharedResources).toBe(1);
    }
    // The five after the first add their vectors, not another 1.5 GiB of temporary memory each.
    expect(memory[5]! - memory[0]!).toBeLessThan(256);
    for (const index of indexes.slice(0, 5)) index.close();
    expect(gpuInfo().sharedResources).toBe(1);
    indexes[5]!.close();
    // The last close frees the index when no call is running, and with it the resources.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gpuInfo().sharedResources).toBe(0);
  });

  it('indexes sharing a device answer concurrent searches correctly', async () => {
    const n = 20_000;
    const queries = randomVectors(64, d, 7);
    const pairs: { gpu: FaissIndex; cpu: FaissIndex }[] = [];
    for (let i = 0; i < 4; i++) {
      const cpu = await FaissIndex.create({ dimension: d, description: i % 2 ? 'IVF64,Flat' : 'Flat', metric: 'l2' });
      const data = randomVectors(n, d, 10 + i);
      if (!cpu.isTrained) await cpu.train(data);
      await cpu.add(data);
      pairs.push({ cpu, gpu: await cpu.copyTo('gpu') });
    }
    const params = (index: FaissIndex) => (index.kind === 'ivf' ? { nprobe: 8 } : {});
    const runs = pairs.flatMap(({ gpu }) =>
      Array.from({ length: 16 }, (_, q) => gpu.search(queries.subarray(q * d, (q + 4) * d), 10, params(gpu))),
    );
    const results = await Promise.all(runs);
    for (const [p, { cpu }] of pairs.entries())
      for (let q = 0; q < 16; q++)
        expectSameNeighbours(
          results[p * 16 + q]!,
          await cpu.search(queries.subarray(q * d, (q + 4) * d), 10, params(cpu)),
        );
    for (const { cpu, gpu } of pairs) {
      cpu.close();
      gpu.close();
    }
  });

  it('worker threads use the same device at once: each gets its own answers', async () => {
    const script = `
      const { parentPort, workerData } = require('node:worker_threads');
      const addon = require(workerData.addon);
      (async () => {
        const d = ${d};
        // Each thread its own vectors (a seeded generator: no two rows alike, so each row's nearest is itself).
        let state = 12345 + workerData.seed * 7919;
        const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
        const data = new Float32Array(5000 * d).map(next);
        const index = await addon.NativeIndex.create(d, 'Flat', 'l2', false, 'gpu');
        await index.add(data);
        let hits = 0;
        for (let r = 0; r < 200; r++) {
          const row = (r * 7) % 5000;
          const { labels } = await index.search(data.subarray(row * d, (row + 1) * d), 1);
          if (Number(labels[0]) === row) hits++;
        }
        parentPort.postMessage({ hits, device: index.info().device });
        index.close();
      })().catch((e) => parentPort.postMessage({ error: String(e) }));`;
    const answers = await Promise.all(
      [0, 1, 2, 3].map(
        (seed) =>
          new Promise<{ hits?: number; device?: string; error?: string }>((resolve, reject) => {
            const worker = new Worker(script, { eval: true, workerData: { addon: GPU_ADDON, seed } });
            worker.once('message', resolve);
            worker.once('error', reject);
          }),
      ),
    );
    for (const answer of answers) expect(answer).toEqual({ hits: 200, device: 'gpu' });
  });
});
