/**
 * An index file read `shared`: one FAISS index in memory for every thread of
 * the process that reads the file so (a searcher pool's workers), read-only,
 * and freed with its last reader. A file written again is another index.
 */
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { FaissError, FaissIndex } from '../../src/index.js';
import { loadAddon, loadedAddonPath } from '../../src/native/addon.js';
import { clusteredVectors } from '../helpers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-shared-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const d = 16;
const base = clusteredVectors(500, d, 3);
const queries = clusteredVectors(5, d, 4);
const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => from + i);
const live = () => loadAddon().sharedIndexes!();

async function written(name: string, vectors: Float32Array, from = 0): Promise<string> {
  const index = await FaissIndex.create({ dimension: d, description: 'Flat', ids: true });
  await index.addWithIds(vectors, ids(vectors.length / d, from));
  const path = join(dir, name);
  await index.write(path);
  index.close();
  return path;
}

describe('FaissIndex.read with shared', () => {
  it('gives every reader of a file the one index, which answers as a copy does, until the last closes it', async () => {
    const path = await written('one.ocvx', base);
    const copy = await FaissIndex.read(path);
    const first = await FaissIndex.read(path, { shared: true });
    const second = await FaissIndex.read(path, { shared: true });
    expect([copy.shared, first.shared, second.shared]).toEqual([false, true, true]);
    expect(live()).toBe(1);
    const expected = await copy.search(queries, 5);
    expect((await first.search(queries, 5)).labels).toEqual(expected.labels);
    first.close();
    expect((await second.search(queries, 5)).labels).toEqual(expected.labels);
    expect(live()).toBe(1);
    second.close();
    copy.close();
    expect(live()).toBe(0);
  });

  it('is one index for the threads of the process that read the file shared', async () => {
    const path = await written('threads.ocvx', base);
    const mine = await FaissIndex.read(path, { shared: true });
    // A worker thread of plain JavaScript loads the built addon itself and counts the shared indexes it sees.
    const seen = await new Promise<number>((resolve, reject) => {
      const worker = new Worker(
        `const { parentPort, workerData } = require('node:worker_threads');
         const addon = require(workerData.addon);
         addon.NativeIndex.read(workerData.path, 'cpu', false, true).then((index) => {
           parentPort.postMessage(addon.sharedIndexes());
           index.close();
         });`,
        { eval: true, workerData: { path, addon: loadedAddonPath() } },
      );
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(seen).toBe(1);
    mine.close();
  });

  it('refuses to change a shared index, naming the way to one that can change', async () => {
    const path = await written('readonly.ocvx', base);
    const shared = await FaissIndex.read(path, { shared: true });
    const extra = clusteredVectors(2, d, 9);
    for (const change of [
      () => shared.addWithIds(extra, [9_000, 9_001]),
      () => shared.removeIds([1]),
      () => shared.train(extra),
    ]) {
      const error = await change().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FaissError);
      expect((error as FaissError).code).toBe('UNSUPPORTED');
      expect((error as Error).message).toMatch(/read shared.*without shared/);
    }
    expect(shared.ntotal).toBe(500);
    const own = await FaissIndex.read(path);
    await own.addWithIds(extra, [9_000, 9_001]);
    expect(own.ntotal).toBe(502);
    shared.close();
    own.close();
  });

  it('reads a file written again under the same name as another index', async () => {
    const path = await written('again.ocvx', base.subarray(0, 100 * d));
    const before = await FaissIndex.read(path, { shared: true });
    renameSync(await written('again-new.ocvx', base.subarray(0, 200 * d)), path);
    const after = await FaissIndex.read(path, { shared: true });
    expect([before.ntotal, after.ntotal]).toEqual([100, 200]);
    expect(live()).toBe(2);
    before.close();
    after.close();
  });

  it('rejects a bad shared option, and sharing an index on a GPU', async () => {
    const path = await written('options.ocvx', base);
    await expect(FaissIndex.read(path, { shared: 'yes' as unknown as boolean })).rejects.toThrow(
      /shared must be a boolean/,
    );
    await expect(FaissIndex.read(path, { shared: true, device: 'gpu' })).rejects.toThrow(/only an index on the CPU/);
  });
});
