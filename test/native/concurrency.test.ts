import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { FaissIndex, type KnnResult } from '../../src/index.js';
import { clusteredVectors, randomVectors, slice } from '../helpers/vectors.js';

const d = 64;

describe('concurrent calls on one index', () => {
  it('parallel searches give the same answers as sequential ones', async () => {
    const index = await FaissIndex.create({ dimension: d });
    await index.add(randomVectors(20_000, d, 1));
    const queries = Array.from({ length: 12 }, (_, i) => randomVectors(1 + (i % 3) * 10, d, 100 + i));
    const sequential: KnnResult[] = [];
    for (const q of queries) sequential.push(await index.search(q, 10));
    const parallel = await Promise.all(queries.map((q) => index.search(q, 10)));
    parallel.forEach((result, i) => expect(result.labels).toEqual(sequential[i]!.labels));
  });

  it('adds interleaved with searches are serialised: every search sees a whole batch or none', async () => {
    const index = await FaissIndex.create({ dimension: d, ids: true, metric: 'l2' });
    const batches = Array.from({ length: 8 }, (_, b) => randomVectors(2_000, d, 200 + b));
    await index.addWithIds(
      batches[0]!,
      Array.from({ length: 2_000 }, (_, i) => i),
    );
    const calls: Promise<unknown>[] = [];
    const seen: number[] = [];
    for (let b = 1; b < batches.length; b++) {
      calls.push(
        index.addWithIds(
          batches[b]!,
          Array.from({ length: 2_000 }, (_, i) => b * 2_000 + i),
        ),
      );
      // Query with the first vector of batch b: exactly itself once the batch is in.
      calls.push(
        index.search(slice(batches[b]!, d, 0, 1), 1).then((r) => {
          seen.push(r.distances[0] === 0 ? Number(r.labels[0]) : -1);
        }),
      );
    }
    await Promise.all(calls);
    expect(index.ntotal).toBe(16_000);
    // Each search ran after its batch's add (calls are queued in order but may
    // run in parallel): it found the vector itself, or ran before the add.
    for (const label of seen) expect(label === -1 || label % 2_000 === 0).toBe(true);
    for (let b = 1; b < batches.length; b++) {
      const r = await index.search(slice(batches[b]!, d, 0, 1), 1);
      expect(r.labels[0]).toBe(BigInt(b * 2_000));
    }
  });

  it('HNSW searches with different efSearch at once each get their own setting', async () => {
    const base = clusteredVectors(10_000, d, 3);
    const queries = clusteredVectors(50, d, 4);
    const index = await FaissIndex.create({ dimension: d, description: 'HNSW16,Flat' });
    await index.add(base);
    const settings = [8, 16, 64, 256, 8, 256];
    const alone: KnnResult[] = [];
    for (const efSearch of settings) alone.push(await index.search(queries, 10, { efSearch }));
    const together = await Promise.all(settings.map((efSearch) => index.search(queries, 10, { efSearch })));
    together.forEach((result, i) => expect(result.labels).toEqual(alone[i]!.labels));
  });

  it('close() while searches run: they finish correctly, later calls are refused', async () => {
    const index = await FaissIndex.create({ dimension: d });
    await index.add(randomVectors(50_000, d, 5));
    const queries = randomVectors(64, d, 6);
    const expected = await index.search(queries, 5);
    const pending = [index.search(queries, 5), index.search(queries, 5)];
    index.close();
    for (const result of await Promise.all(pending)) expect(result.labels).toEqual(expected.labels);
    await expect(index.search(queries, 5)).rejects.toMatchObject({ code: 'INDEX_CLOSED' });
  });
});

describe('worker_threads', () => {
  it('the addon loads and searches in several threads at once', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const addon = require(workerData.path);
      (async () => {
        const index = await addon.NativeIndex.create(4, 'Flat', 'l2', false, 'cpu');
        await index.add(new Float32Array([0, 0, 0, 0, 1, 1, 1, 1, 5, 5, 5, 5]));
        const { labels } = await index.search(new Float32Array([0.9, 1, 1, 1.1]), 1);
        parentPort.postMessage(Number(labels[0]));
      })().catch((e) => parentPort.postMessage(String(e)));
    `;
    const path = new URL('../../build/Release/ocvector.node', import.meta.url).pathname;
    const results = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise((resolve, reject) => {
            const worker = new Worker(source, { eval: true, workerData: { path } });
            worker.once('message', (value) => {
              resolve(value);
              void worker.terminate();
            });
            worker.once('error', reject);
          }),
      ),
    );
    expect(results).toEqual([1, 1, 1]);
  });
});
