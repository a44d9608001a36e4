/**
 * Arguments, files and call sequences that once crashed or hung the process.
 * Each case runs in a child process: a crash or a hang fails the test instead
 * of ending the test runner.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaissIndex } from '../../src/index.js';
import { runIsolated, settled } from '../helpers/isolated.js';
import { randomVectors } from '../helpers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child snippet's helper: the outcome of a call as {ok} or {code, message}. */
const OUTCOME = `
async function outcome(call) {
  try { await call(); return { ok: true }; }
  catch (e) { return { code: e?.code, message: String(e?.message) }; }
}
`;

describe('a search whose result would not fit is refused before anything is allocated', () => {
  it('on the raw addon, even on a 10-vector index (k > ntotal, then nq·k over the limit)', async () => {
    const run = await runIsolated(
      `${OUTCOME}
      import { createRequire } from 'node:module';
      const addon = createRequire(import.meta.url)(ADDON);
      const index = await addon.NativeIndex.create(8, 'Flat', 'l2', false, 'cpu');
      await index.add(new Float32Array(80).fill(0.5));
      const big = await addon.NativeIndex.create(1, 'Flat', 'l2', false, 'cpu');
      await big.add(new Float32Array(1 << 20).fill(1));
      const results = [
        await outcome(() => index.search(new Float32Array(4096 * 8), 1 << 20)),
        await outcome(() => big.search(new Float32Array(4096), 1 << 20)),
        // Within the limit (16 × 2^20 results): answered. 64 queries, the limit itself, took 15 s
        // on 2 cores and passed the child's deadline when the machine was busy.
        await outcome(() => big.search(new Float32Array(16), 1 << 20)),
      ];
      console.log(JSON.stringify(results));`,
      { timeout: 60_000 },
    );
    const [tooManyK, tooMany, fits] = settled(run) as { code?: string; message?: string; ok?: boolean }[];
    expect(tooManyK).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/k is 1048576 but the index holds only 10 vectors/),
    });
    expect(tooMany).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/4096 queries × k 1048576, more than the 67108864 results/),
    });
    expect(fits).toEqual({ ok: true });
  });

  it('through the facade, with the same message', async () => {
    const index = await FaissIndex.create({ dimension: 1, metric: 'l2' });
    await index.add(new Float32Array(1 << 20).fill(1));
    await expect(index.search(new Float32Array(1_024), 1 << 20)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(
        /1024 queries × k 1048576, more than the 67108864 results one search may return; search in batches of at most 64 queries/,
      ),
    });
    index.close();
  });
});

describe('only regular files whose container verifies are read', () => {
  it('a FIFO is refused at once (it used to block a thread forever)', async () => {
    const fifo = join(dir, 'vectors-g1.ocvx');
    execFileSync('mkfifo', [fifo]);
    const run = await runIsolated(
      `${OUTCOME}
      const { FaissIndex } = await import(DIST);
      console.log(JSON.stringify(await outcome(() => FaissIndex.read(${JSON.stringify(fifo)}))));`,
      { timeout: 15_000 },
    );
    expect(settled(run)).toMatchObject({
      code: 'IO',
      message: expect.stringContaining('is a FIFO, not a regular file'),
    });
  });

  it('a plain FAISS file or buffer is refused unless the caller opts in', async () => {
    const index = await FaissIndex.create({ dimension: 4, ids: true });
    await index.addWithIds(
      randomVectors(10, 4, 1),
      [...Array(10).keys()].map((i) => i * 7),
    );
    const plain = (await index.toBuffer()).subarray(32);
    const path = join(dir, 'plain.faiss');
    writeFileSync(path, plain);
    for (const load of [() => FaissIndex.read(path), () => FaissIndex.fromBuffer(plain)]) {
      await expect(load()).rejects.toMatchObject({
        code: 'CORRUPT_INDEX',
        message: expect.stringContaining('pass plainFaiss: true'),
      });
    }
    expect((await FaissIndex.read(path, { plainFaiss: true })).ntotal).toBe(10);
    expect((await FaissIndex.fromBuffer(plain, { plainFaiss: true })).ntotal).toBe(10);
    await expect(FaissIndex.read(path, { plainFaiss: 'yes' as never })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('an id map with fewer entries than vectors is refused at load, not read past its end', async () => {
    const index = await FaissIndex.create({ dimension: 4, ids: true });
    await index.addWithIds(randomVectors(10, 4, 2), [...Array(10).keys()]);
    const plain = Buffer.from((await index.toBuffer()).subarray(32));
    // IDMap2 ends with its id map: a u64 count, then the ids. Announce 9 and drop the last id.
    const countAt = plain.length - 8 - 10 * 8;
    expect(plain.readBigUInt64LE(countAt)).toBe(10n);
    plain.writeBigUInt64LE(9n, countAt);
    const damaged = plain.subarray(0, plain.length - 8);
    const run = await runIsolated(`${OUTCOME}
      const { FaissIndex } = await import(DIST);
      const bytes = Buffer.from(${JSON.stringify(damaged.toString('base64'))}, 'base64');
      console.log(JSON.stringify(await outcome(async () => {
        const index = await FaissIndex.fromBuffer(bytes, { plainFaiss: true });
        await index.search(new Float32Array(4), 10);
        await index.removeIds([3]);
      })));`);
    expect(settled(run)).toMatchObject({
      code: 'CORRUPT_INDEX',
      message: expect.stringContaining('its id map has 9 entries for 10 vectors'),
    });
  });
});

describe('inputs of a pending call', () => {
  it('may be transferred (detached) while an add, a search or a removal is pending', async () => {
    const run = await runIsolated(
      `
      const { FaissIndex } = await import(DIST);
      const d = 64;
      const index = await FaissIndex.create({ dimension: d, ids: true });
      let total = 0;
      for (let round = 0; round < 40; round++) {
        const vectors = new Float32Array(2_000 * d).map(() => Math.random());
        const ids = BigInt64Array.from({ length: 2_000 }, (_, i) => BigInt(round * 2_000 + i));
        const pending = [index.addWithIds(vectors, ids)];
        // Detach both buffers; drop the new owners and collect them.
        structuredClone(vectors.buffer, { transfer: [vectors.buffer] });
        structuredClone(ids.buffer, { transfer: [ids.buffer] });
        const queries = new Float32Array(50 * d).map(() => Math.random());
        if (round > 0) pending.push(index.search(queries, 5));
        structuredClone(queries.buffer, { transfer: [queries.buffer] });
        globalThis.gc();
        new Float32Array(2_000 * d).fill(-1e30);
        await Promise.all(pending);
        total += 2_000;
      }
      console.log(JSON.stringify({ ntotal: index.ntotal, expected: total }));`,
      { timeout: 60_000 },
    );
    const result = settled(run) as { ntotal: number; expected: number };
    expect(result.ntotal).toBe(result.expected);
  });
});

describe('setErrorClass', () => {
  it('refuses what is not an Error constructor, and a rejection afterwards still settles', async () => {
    const run = await runIsolated(`${OUTCOME}
      import { createRequire } from 'node:module';
      const addon = createRequire(import.meta.url)(ADDON);
      const refused = [];
      for (const bad of [() => {}, { method() {} }.method, class { constructor() { throw new Error('no'); } }, class NotAnError {}, 42]) {
        refused.push(await outcome(() => addon.setErrorClass(bad)));
      }
      class Throws extends Error { constructor(message, code) { super(message); if (message !== 'probe') throw new Error('later'); this.code = code; } }
      refused.push(await outcome(() => addon.setErrorClass(Throws)));
      const index = await addon.NativeIndex.create(2, 'Flat', 'l2', false, 'cpu');
      const rejected = await outcome(() => index.add(new Float32Array([NaN, 1])));
      console.log(JSON.stringify({ refused, rejected }));`);
    const { refused, rejected } = settled(run) as {
      refused: { ok?: boolean; code?: string; message?: string }[];
      rejected: { code?: string; message?: string };
    };
    expect(refused.slice(0, 5).map((r) => r.code)).toEqual(Array(5).fill('INVALID_ARGUMENT'));
    expect(refused[0]!.message).toMatch(/errorClass must be a constructor of Error objects/);
    expect(refused[5]).toEqual({ ok: true });
    // The registered class threw for a real message: the plain Error still carries the code.
    expect(rejected).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('NaN') });
  });
});
