/**
 * A process may end with GPU indexes still open: naturally, by process.exit,
 * by an uncaught exception, or with a worker thread holding one. The indexes
 * are freed before the CUDA runtime unloads (or not at all), never after it:
 * a FAISS GPU destructor that runs after it aborts the process.
 */
import { expect, it } from 'vitest';
import { runNode } from '../../helpers/run-node.js';
import { GPU_ADDON, describeGpu } from './gpu-addon.js';

const opening = `
  const addon = require(${JSON.stringify(GPU_ADDON)});
  async function openSome() {
    const d = 32;
    const data = new Float32Array(4096 * d).map((_, i) => Math.cos(i * 0.01));
    const open = [];
    for (const [description, ids] of [['Flat', false], ['Flat', true], ['IVF16,Flat', false]]) {
      const index = await addon.NativeIndex.create(d, description, 'l2', ids, 'gpu');
      if (!index.isTrained) await index.train(data);
      if (ids) await index.addWithIds(data, BigInt64Array.from({ length: 4096 }, (_, i) => BigInt(i)));
      else await index.add(data);
      await index.search(data.subarray(0, d), 5);
      if (index.info().device !== 'gpu') throw new Error('not on the GPU');
      open.push(index);
    }
    globalThis.keep = open;
    return open;
  }`;

async function run(body: string) {
  return runNode(['-e', `${opening}\n${body}`], { cwd: process.cwd(), timeout: 120_000 });
}

describeGpu('exit with open GPU indexes', () => {
  it.each([
    ['the event loop empties', `openSome().then(() => console.log('done'));`, 0],
    ['process.exit(0)', `openSome().then(() => { console.log('done'); process.exit(0); });`, 0],
    [
      'process.exit(3) with a search still running',
      `openSome().then((open) => { open[0].search(new Float32Array(32), 5); console.log('done'); process.exit(3); });`,
      3,
    ],
    ['an uncaught exception', `openSome().then(() => { console.log('done'); throw new Error('boom'); });`, 1],
  ])('%s: the process ends with its own exit code, no abort', async (_name, body, code) => {
    const result = await run(body);
    expect(result.stdout).toContain('done');
    expect(result.stderr).not.toMatch(/abort|Assertion|CUDA error|Faiss assertion|terminate called/i);
    expect(result.code).toBe(code);
  });

  it('a worker thread that holds GPU indexes is terminated, then the process ends', async () => {
    const result = await run(`
      const { Worker } = require('node:worker_threads');
      const worker = new Worker(${JSON.stringify(`${opening}\nopenSome().then(() => require('node:worker_threads').parentPort.postMessage('open'));`)}, { eval: true });
      worker.once('message', async () => { await worker.terminate(); console.log('done'); });`);
    expect(result.stderr).not.toMatch(/abort|Assertion|CUDA error|Faiss assertion|terminate called/i);
    expect([result.code, result.stdout.trim()]).toEqual([0, 'done']);
  });
});
