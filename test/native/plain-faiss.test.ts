/**
 * Plain FAISS files (no ocvector container) are parsed and checked in a child
 * process: a damaged one rejects with a typed error and never takes this
 * process down. Mutants of real files of ten index types, and the damage that
 * once crashed or exhausted the process, each made by hand.
 * bench/plain-faiss-fuzz.ts runs the same mutants by the hundred.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaissIndex } from '../../src/index.js';
import {
  MUTANT_KINDS,
  MUTANT_QUERIES,
  inPool,
  makePlainFixture,
  mutate,
  readMutant,
  type PlainFixture,
} from '../helpers/faiss-mutants.js';
import { randomVectors } from '../helpers/vectors.js';
import { rejection } from '../helpers/rejection.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-plain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixtures = new Map<string, PlainFixture>();
beforeAll(async () => {
  for (const kind of MUTANT_KINDS) fixtures.set(kind.name, await makePlainFixture(kind));
});
const fixture = (name: string) => fixtures.get(name)!;

/** FAISS's index header: fourcc, d (i32), ntotal (i64), two unused i64, is_trained (u8), metric (i32). */
const HEADER = 37;

describe('a valid plain FAISS index is read through the child, unchanged', () => {
  it.each(MUTANT_KINDS.map((kind) => kind.name))('%s: from a file and from a buffer, same answers', async (name) => {
    const { plain, labels } = fixture(name);
    const path = join(dir, `${name}.faiss`);
    writeFileSync(path, plain);
    const nprobe = name.startsWith('IVF') ? { nprobe: 4 } : {};
    for (const index of [
      await FaissIndex.read(path, { plainFaiss: true }),
      await FaissIndex.fromBuffer(plain, { plainFaiss: true }),
    ]) {
      expect(index.ntotal).toBe(200);
      expect((await index.search(MUTANT_QUERIES, 5, nprobe)).labels).toEqual(labels);
      // What comes back is the container: written out, it reads without plainFaiss.
      expect((await FaissIndex.fromBuffer(await index.toBuffer())).ntotal).toBe(200);
      index.close();
    }
  });

  it('a container file or buffer keeps the in-process path when plainFaiss is set', async () => {
    const index = await FaissIndex.create({ dimension: 4 });
    await index.add(randomVectors(10, 4, 3));
    const container = await index.toBuffer();
    const path = join(dir, 'container.ocvx');
    await index.write(path);
    // A timeout no child could meet: the child is not used.
    expect((await FaissIndex.read(path, { plainFaiss: true, plainFaissTimeoutMs: 1 })).ntotal).toBe(10);
    expect((await FaissIndex.fromBuffer(container, { plainFaiss: true, plainFaissTimeoutMs: 1 })).ntotal).toBe(10);
  });

  it('an index type whose structure is not checked is refused from a plain file, and kept from a container', async () => {
    const lsh = await FaissIndex.create({ dimension: 8, description: 'LSH', metric: 'l2' });
    await lsh.add(randomVectors(20, 8, 4));
    const container = await lsh.toBuffer();
    const error = await rejection(() => FaissIndex.fromBuffer(container.subarray(32), { plainFaiss: true }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toMatch(/whose structure this library does not check.*supported: Flat, PQ, SQ, HNSW/);
    expect((await FaissIndex.fromBuffer(container)).ntotal).toBe(20);
  });

  it('a container read untrusted goes through the child too: same answers, and only the types it checks', async () => {
    const { plain, labels } = fixture('IDMap2,Flat');
    const original = await FaissIndex.fromBuffer(plain, { plainFaiss: true });
    const checked = await original.toBuffer();
    original.close();
    const path = join(dir, 'untrusted.ocvx');
    writeFileSync(path, checked);
    for (const index of [
      await FaissIndex.read(path, { untrusted: true }),
      await FaissIndex.fromBuffer(checked, { untrusted: true }),
    ]) {
      expect((await index.search(MUTANT_QUERIES, 5)).labels).toEqual(labels);
      index.close();
    }
    // A timeout no child could meet: the child is used.
    expect((await rejection(() => FaissIndex.read(path, { untrusted: true, plainFaissTimeoutMs: 1 }))).code).toBe(
      'CORRUPT_INDEX',
    );
    const lsh = await FaissIndex.create({ dimension: 8, description: 'LSH', metric: 'l2' });
    await lsh.add(randomVectors(20, 8, 4));
    const error = await rejection(async () => FaissIndex.fromBuffer(await lsh.toBuffer(), { untrusted: true }));
    expect(error.code).toBe('UNSUPPORTED');
    expect(error.message).toMatch(/whose structure this library does not check/);
    // Plain bytes still need plainFaiss.
    expect((await rejection(() => FaissIndex.fromBuffer(plain, { untrusted: true }))).code).toBe('CORRUPT_INDEX');
  });

  it('checks its options and still reports missing files and directories as IO errors', async () => {
    await expect(FaissIndex.read(join(dir, 'nope.faiss'), { plainFaiss: true })).rejects.toMatchObject({ code: 'IO' });
    await expect(FaissIndex.read(dir, { plainFaiss: true })).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining('is a directory'),
    });
    await expect(FaissIndex.fromBuffer(Buffer.alloc(8), { plainFaissTimeoutMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('plainFaissTimeoutMs must be an integer from 1'),
    });
  });
});

describe('damage that crashed, hung or exhausted the process is a typed error', () => {
  it('an id map of d = 1 around a d = 8 index (accepted and searched out of bounds before)', async () => {
    const bytes = Buffer.from(fixture('IDMap2,Flat').plain);
    expect(bytes.toString('latin1', 0, 4)).toBe('IxM2');
    expect(bytes.readInt32LE(4)).toBe(8);
    bytes.writeInt32LE(1, 4);
    const error = await rejection(() => FaissIndex.fromBuffer(bytes, { plainFaiss: true }));
    expect(error.code).toBe('CORRUPT_INDEX');
    expect(error.message).toMatch(
      /index buffer is damaged: the index under the id map has dimension 8, the index around it 1/,
    );
  });

  it('an id map that announces more vectors than it holds (SIGSEGV building its reverse map)', async () => {
    const bytes = Buffer.from(fixture('IDMap2,Flat').plain);
    bytes.writeBigInt64LE(200n + (1n << 40n), 8);
    const path = join(dir, 'idmap-ntotal.faiss');
    writeFileSync(path, bytes);
    const error = await rejection(() => FaissIndex.read(path, { plainFaiss: true }));
    expect(error.code).toBe('CORRUPT_INDEX');
    expect(error.message).toContain(`index file ${path}`);
  });

  it('a product quantizer with no sub-quantizers (SIGFPE)', async () => {
    const bytes = Buffer.from(fixture('PQ').plain);
    expect(bytes.toString('latin1', 0, 4)).toBe('IxPq');
    // After the header: the quantizer's d, M and nbits (u64 each).
    expect(bytes.readBigUInt64LE(HEADER + 8)).toBe(4n);
    bytes.writeBigUInt64LE(0n, HEADER + 8);
    const error = await rejection(() => FaissIndex.fromBuffer(bytes, { plainFaiss: true }));
    expect(error.code).toBe('CORRUPT_INDEX');
  });

  it('a scalar quantizer of an unknown type (SIGABRT "unknown qtype" in a parallel search)', async () => {
    const bytes = Buffer.from(fixture('SQ8').plain);
    expect(bytes.toString('latin1', 0, 4)).toBe('IxSQ');
    expect(bytes.readInt32LE(HEADER)).toBe(0); // QT_8bit
    bytes.writeInt32LE(77, HEADER);
    const error = await rejection(() => FaissIndex.fromBuffer(bytes, { plainFaiss: true }));
    expect(error.code).toBe('CORRUPT_INDEX');
  });

  it('an HNSW link past the last vector (SIGSEGV in search)', async () => {
    const bytes = Buffer.from(fixture('HNSW').plain);
    expect(bytes.toString('latin1', 0, 4)).toBe('IHNf');
    // The graph: assign_probas (f64), cum_nneighbor_per_level (i32), levels (i32), offsets (u64), neighbors (i32).
    let at = HEADER;
    for (const width of [8, 4, 4, 8]) at += 8 + Number(bytes.readBigUInt64LE(at)) * width;
    expect(Number(bytes.readBigUInt64LE(at))).toBeGreaterThan(0);
    bytes.writeInt32LE(1_000_000, at + 8);
    const error = await rejection(() => FaissIndex.fromBuffer(bytes, { plainFaiss: true }));
    expect(error.code).toBe('CORRUPT_INDEX');
    expect(error.message).toMatch(/graph links to vector 1000000 of 200/);
  });

  it('a size of 4 GiB in a 6 kB file fails at the memory cap, fast, instead of filling the memory', async () => {
    const bytes = Buffer.from(fixture('Flat').plain);
    expect(bytes.toString('latin1', 0, 4)).toBe('IxF2');
    bytes.writeBigUInt64LE(1n << 30n, HEADER); // the vector data's length, in floats
    const started = Date.now();
    const error = await rejection(() => FaissIndex.fromBuffer(bytes, { plainFaiss: true }));
    expect(error.code).toBe('CORRUPT_INDEX');
    expect(error.message).toMatch(/reading it asked for more than the \d+ MiB an index of its size can need/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a child that takes too long is killed: CORRUPT_INDEX naming the time allowed', async () => {
    const error = await rejection(() =>
      FaissIndex.fromBuffer(fixture('HNSW').plain, { plainFaiss: true, plainFaissTimeoutMs: 5 }),
    );
    expect(error.code).toBe('CORRUPT_INDEX');
    expect(error.message).toMatch(/was not checked within 5 ms.*pass a larger plainFaissTimeoutMs/);
  });
});

describe('mutants of real files: the process never dies', () => {
  // Eight mutants of each of ten types (80 children, two at a time); the bench runs hundreds.
  const MUTANTS_PER_KIND = 8;

  it('each mutant either loads into an index that searches, or rejects with CORRUPT_INDEX or UNSUPPORTED', async () => {
    const jobs = MUTANT_KINDS.flatMap((kind) =>
      Array.from({ length: MUTANTS_PER_KIND }, (_, i) => ({ kind: kind.name, seed: i + 1 })),
    );
    const outcomes = await inPool(jobs, 2, async ({ kind, seed }) => ({
      kind,
      seed,
      outcome: await readMutant(mutate(fixture(kind).plain, seed)),
    }));
    const unexpected = outcomes.filter(
      ({ outcome }) => !outcome.ok && outcome.code !== 'CORRUPT_INDEX' && outcome.code !== 'UNSUPPORTED',
    );
    expect(unexpected).toEqual([]);
    // Both branches are exercised: some mutants are harmless (vector data), some are refused.
    expect(outcomes.some(({ outcome }) => outcome.ok)).toBe(true);
    expect(outcomes.some(({ outcome }) => !outcome.ok)).toBe(true);
  });
});
