/**
 * Plain FAISS files of several index types, made with the addon itself, and
 * deterministic mutants of them: the input of the tests and the bench that
 * read damaged plain FAISS files (test/native/plain-faiss.test.ts,
 * bench/plain-faiss-fuzz.ts).
 */
import { FaissError, FaissIndex } from '../../src/index.js';
import { randomVectors, seededRandom } from './vectors.js';

export const MUTANT_D = 8;

/**
 * Small indexes, so that a mutation often lands in structure rather than in
 * vector data. PQ uses 4-bit codes and `np` (no polysemous training): 16
 * centroids per sub-quantizer train on 700 points without FAISS's warning.
 */
export const MUTANT_KINDS: readonly { name: string; description: string; ids: boolean }[] = [
  { name: 'Flat', description: 'Flat', ids: false },
  { name: 'IDMap2,Flat', description: 'Flat', ids: true },
  { name: 'HNSW', description: 'HNSW8,Flat', ids: false },
  { name: 'IDMap2,HNSW', description: 'HNSW8,Flat', ids: true },
  { name: 'IVF', description: 'IVF4,Flat', ids: true },
  { name: 'PQ', description: 'PQ4x4np', ids: false },
  { name: 'SQ8', description: 'SQ8', ids: false },
  { name: 'IVF,PQ', description: 'IVF4,PQ4x4np', ids: false },
  { name: 'IVF,SQ8', description: 'IVF4,SQ8', ids: true },
  { name: 'HNSW,SQ8', description: 'HNSW8,SQ8', ids: false },
];

export const MUTANT_QUERIES = randomVectors(3, MUTANT_D, 99);

export interface PlainFixture {
  name: string;
  /** FAISS's own serialisation: the container's payload. */
  plain: Buffer;
  /** The original's answer to MUTANT_QUERIES, k = 5. */
  labels: BigInt64Array;
}

export async function makePlainFixture(kind: (typeof MUTANT_KINDS)[number], vectors = 200): Promise<PlainFixture> {
  const index = await FaissIndex.create({
    dimension: MUTANT_D,
    description: kind.description,
    ids: kind.ids,
    metric: 'l2',
  });
  await index.train(randomVectors(700, MUTANT_D, 1));
  const base = randomVectors(vectors, MUTANT_D, 2);
  if (kind.ids)
    await index.addWithIds(
      base,
      Array.from({ length: vectors }, (_, i) => 3 * i + 1),
    );
  else await index.add(base);
  const { labels } = await index.search(MUTANT_QUERIES, 5, kind.description.startsWith('IVF') ? { nprobe: 4 } : {});
  const plain = Buffer.from((await index.toBuffer()).subarray(32));
  index.close();
  return { name: kind.name, plain, labels };
}

const INTERESTING = [
  0n,
  1n,
  2n,
  4n,
  8n,
  255n,
  256n,
  0x7fffffffn,
  0x80000000n,
  0xffffffffn,
  1n << 40n,
  (1n << 63n) - 1n,
  (1n << 64n) - 1n,
];

/**
 * Mutant number `seed` of `bytes`: one to three edits (a flipped bit, a random
 * byte, a 32- or 64-bit field overwritten with a boundary value), mostly in
 * the first 256 bytes, where the headers and sizes are.
 */
export function mutate(bytes: Uint8Array, seed: number): Buffer {
  const random = seededRandom(seed * 2_654_435_761);
  const out = Buffer.from(bytes);
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (random() < 0.6 ? Math.min(256, out.length) : out.length));
    const value = INTERESTING[Math.floor(random() * INTERESTING.length)]!;
    switch (Math.floor(random() * 4)) {
      case 0:
        out[at]! ^= 1 << Math.floor(random() * 8);
        break;
      case 1:
        out[at] = Math.floor(random() * 256);
        break;
      case 2:
        if (at + 4 <= out.length) out.writeUInt32LE(Number(value & 0xffffffffn), at);
        break;
      default:
        if (at + 8 <= out.length) out.writeBigUInt64LE(value & ((1n << 64n) - 1n), at);
    }
  }
  return out;
}

export type MutantOutcome = { ok: true; ntotal: number } | { ok: false; code: string; message: string };

/**
 * Reads a mutant as a plain FAISS buffer. When it loads, the index must be
 * usable: it is searched, and a vector reconstructed, one removed and more
 * added where its type allows, then searched again; each of those either
 * works or rejects with a FaissError (reconstruct on an IVF index without a
 * direct map, say). Anything else throws.
 */
export async function readMutant(bytes: Buffer): Promise<MutantOutcome> {
  let index: FaissIndex;
  try {
    index = await FaissIndex.fromBuffer(bytes, { plainFaiss: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return { ok: false, code: String(code), message: String(message) };
  }
  try {
    const ntotal = index.ntotal;
    if (ntotal > 0 && index.isTrained) {
      const search = async () => {
        const k = Math.min(5, index.ntotal);
        const { labels } = await index.search(randomVectors(3, index.d, 7), k);
        if (labels.length !== 3 * k) throw new Error('a search returned the wrong number of labels');
        return labels;
      };
      const labels = await search();
      const someId = labels.find((label) => label >= 0n);
      const typed = async (call: () => Promise<unknown>) => {
        try {
          await call();
        } catch (error) {
          if (!(error instanceof FaissError)) throw error;
        }
      };
      if (someId !== undefined) {
        await typed(() => index.reconstruct(someId));
        if (index.supportsRemove) await typed(() => index.removeIds([someId]));
      }
      const more = randomVectors(4, index.d, 8);
      await typed(() =>
        index.hasIds
          ? index.addWithIds(more, [1n << 40n, (1n << 40n) + 1n, (1n << 40n) + 2n, (1n << 40n) + 3n])
          : index.add(more),
      );
      if (index.ntotal > 0) await search();
    }
    return { ok: true, ntotal };
  } finally {
    index.close();
  }
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
