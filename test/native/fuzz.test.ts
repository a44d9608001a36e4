/**
 * Bounded fuzzing of the native boundary, each group in a child process so
 * that a crash (a signal) or a hang (the timeout) is seen: 1,200 random bad
 * calls to the facade, 1,200 to the raw addon, and 300 mutated index files
 * and buffers. Seeded: a failure can be replayed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIsolated, settled } from '../helpers/isolated.js';

// The fuzzed calls write index files to whatever paths they are given (`gpu`, `HNSW32,Flat`): in a scratch directory, not the checkout.
const scratch = mkdtempSync(join(tmpdir(), 'ocvector-fuzz-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const fuzz = (code: string) => runIsolated(code, { cwd: scratch });

/** Shared by the children: a seeded generator and a pool of hostile values. */
const PRELUDE = `
let seed = 0x9e3779b9;
const random = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
const pick = (items) => items[Math.floor(random() * items.length)];
const detached = () => { const a = new Float32Array(8); structuredClone(a.buffer, { transfer: [a.buffer] }); return a; };
const values = () => [
  undefined, null, 0, -1, 1, 7, 8, 1.5, NaN, Infinity, -Infinity, 2 ** 31, 2 ** 53, -(2 ** 63), 1 << 20, (1 << 20) + 1,
  '', 'Flat', 'HNSW32,Flat', 'IVF4,Flat', 'PQ3', 'Bogus', 'ip', 'l2', 'cpu', 'gpu', 'auto', '/nonexistent/x.ocvx', '/dev/zero', '/', 'a\\0b',
  true, false, {}, [], [1, 2, 3], [-1], [1.5], [2 ** 60], { dimension: 8 }, { dimension: -8 }, { dimension: 8, description: 'IVF4,PQ3' },
  { device: 'tpu' }, { plainFaiss: 1 }, { efSearch: 0 }, { nprobe: -3 }, () => {}, Symbol('s'), 1n, -1n, 2n ** 70n,
  new Float32Array(0), new Float32Array(7), new Float32Array(8), new Float32Array(8).fill(NaN), new Float32Array(16).fill(Infinity),
  new Float32Array(8 * 3).map(() => random()), new Float64Array(8), new Int32Array(8), new BigInt64Array(3).fill(-1n),
  new BigInt64Array(1), new BigInt64Array([5n, 5n]), new Uint8Array(40), Buffer.from('OCVECIDX'), Buffer.alloc(32), detached(),
  new ArrayBuffer(32), new DataView(new ArrayBuffer(8)),
];
const args = () => Array.from({ length: Math.floor(random() * 5) }, () => pick(values()));
async function attempt(call) {
  try { await call(); return 'ok'; }
  catch (error) { return error?.code ? 'coded' : \`uncoded \${error?.name}: \${String(error?.message).slice(0, 120)}\`; }
}
`;

describe('fuzzing the native boundary (0 crashes, 0 hangs)', () => {
  it('1,200 random calls to the facade: each settles, failures are FaissErrors with a code', async () => {
    const run = await fuzz(`${PRELUDE}
      const { FaissIndex, FaissError } = await import(DIST);
      const make = () => [
        FaissIndex.create({ dimension: 8, metric: 'l2' }),
        FaissIndex.create({ dimension: 8, ids: true }),
        FaissIndex.create({ dimension: 8, description: 'HNSW8,Flat' }),
      ];
      const indexes = await Promise.all(make());
      for (const index of indexes) index.hasIds ? await index.addWithIds(new Float32Array(80).map(() => random()), [...Array(10).keys()]) : await index.add(new Float32Array(80).map(() => random()));
      const methods = ['train', 'add', 'addWithIds', 'search', 'removeIds', 'reconstruct', 'write', 'toBuffer'];
      const statics = ['create', 'read', 'fromBuffer'];
      const outcomes = {};
      let wrongClass = 0;
      for (let i = 0; i < 1200; i++) {
        const a = args();
        const outcome = await attempt(async () => {
          try {
            if (random() < 0.25) return await FaissIndex[pick(statics)](...a);
            const index = pick(indexes);
            if (random() < 0.01) index.close();
            return await index[pick(methods)](...a);
          } catch (error) {
            if (!(error instanceof FaissError)) wrongClass++;
            throw error;
          }
        });
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      console.log(JSON.stringify({ outcomes, wrongClass }));`);
    const { outcomes, wrongClass } = settled(run) as { outcomes: Record<string, number>; wrongClass: number };
    expect(Object.keys(outcomes).filter((key) => key.startsWith('uncoded'))).toEqual([]);
    expect(wrongClass).toBe(0);
    expect((outcomes.ok ?? 0) + (outcomes.coded ?? 0)).toBe(1200);
    expect(outcomes.coded).toBeGreaterThan(600);
  });

  it('1,200 random calls to the raw addon: each settles or throws, nothing crashes', async () => {
    const run = await fuzz(`${PRELUDE}
      import { createRequire } from 'node:module';
      const addon = createRequire(import.meta.url)(ADDON);
      class CodedError extends Error { constructor(message, code) { super(message); this.code = code; } }
      addon.setErrorClass(CodedError);
      const indexes = [];
      for (const [d, description, ids] of [[8, 'Flat', false], [8, 'Flat', true], [8, 'HNSW8,Flat', false], [8, 'IVF2,Flat', false]]) {
        const index = await addon.NativeIndex.create(d, description, 'l2', ids, 'cpu');
        const vectors = new Float32Array(8 * 40).map(() => random());
        await index.train(vectors);
        if (ids) await index.addWithIds(vectors, BigInt64Array.from({ length: 40 }, (_, i) => BigInt(i))); else await index.add(vectors);
        indexes.push(index);
      }
      const methods = ['train', 'add', 'addWithIds', 'search', 'removeIds', 'reconstruct', 'write', 'toBuffer', 'info', 'close'];
      const statics = ['create', 'read', 'fromBuffer'];
      const outcomes = {};
      for (let i = 0; i < 1200; i++) {
        const a = args();
        const outcome = await attempt(async () => {
          if (random() < 0.2) return await addon.NativeIndex[pick(statics)](...a);
          if (random() < 0.05) return addon.setErrorClass(...a);
          if (random() < 0.03) return new addon.NativeIndex(...a);
          const index = pick(indexes);
          const method = pick(methods);
          if (method === 'close' && random() < 0.9) return;
          return await index[method](...a);
        });
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      console.log(JSON.stringify({ outcomes }));`);
    const { outcomes } = settled(run) as { outcomes: Record<string, number> };
    expect(Object.keys(outcomes).filter((key) => key.startsWith('uncoded'))).toEqual([]);
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(1200);
  });

  it('300 mutated index files and buffers: each is refused (or reads as a whole), nothing crashes', async () => {
    const run = await runIsolated(
      `${PRELUDE}
      import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      const { FaissIndex } = await import(DIST);
      const dir = mkdtempSync(join(tmpdir(), 'ocvector-fuzz-'));
      const sources = [];
      for (const [description, ids] of [['Flat', true], ['HNSW8,Flat', false], ['IVF4,Flat', false], ['IVF4,PQ2x4', false], ['SQ8', false], ['PQ4x4', true]]) {
        const index = await FaissIndex.create({ dimension: 8, description, ids });
        const vectors = new Float32Array(8 * 300).map(() => random());
        await index.train(vectors);
        if (ids) await index.addWithIds(vectors, [...Array(300).keys()].map((i) => i * 3)); else await index.add(vectors);
        sources.push(await index.toBuffer());
        index.close();
      }
      const mutate = (bytes) => {
        const out = Buffer.from(bytes);
        switch (Math.floor(random() * 6)) {
          case 0: for (let n = 1 + Math.floor(random() * 8); n > 0; n--) out[Math.floor(random() * out.length)] ^= 1 << Math.floor(random() * 8); return out;
          case 1: return out.subarray(0, Math.floor(random() * out.length));
          case 2: { const at = 32 + Math.floor(random() * (out.length - 32)); out.fill(0, at, Math.min(out.length, at + 4096)); return out; }
          case 3: out.writeBigUInt64LE(BigInt(Math.floor(random() * 2 ** 40)), 16); return out;
          case 4: return out.subarray(32); // the payload without its header
          default: return Buffer.concat([out, Buffer.alloc(Math.floor(random() * 64), 7)]);
        }
      };
      const outcomes = {};
      for (let i = 0; i < 300; i++) {
        const bytes = mutate(pick(sources));
        const path = join(dir, \`m\${i}.ocvx\`);
        writeFileSync(path, bytes);
        for (const load of [() => FaissIndex.read(path), () => FaissIndex.fromBuffer(bytes)]) {
          const outcome = await attempt(async () => {
            const index = await load();
            await index.search(new Float32Array(8).map(() => random()), 1);
            if (index.supportsRemove) await index.removeIds([3]);
            index.close();
          });
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        }
      }
      rmSync(dir, { recursive: true, force: true });
      console.log(JSON.stringify({ outcomes }));`,
      { timeout: 60_000 },
    );
    const { outcomes } = settled(run) as { outcomes: Record<string, number> };
    expect(Object.keys(outcomes).filter((key) => key.startsWith('uncoded'))).toEqual([]);
    expect(outcomes.coded).toBeGreaterThanOrEqual(590);
  });
});
