import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaissError, FaissIndex } from '../../src/index.js';
import { clusteredVectors, randomVectors } from '../helpers/vectors.js';
import { xxh64 } from '../helpers/xxh64.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const d = 32;
const base = clusteredVectors(3_000, d, 11);
const queries = clusteredVectors(20, d, 12);

const kinds = [
  { description: 'Flat', ids: false },
  { description: 'Flat', ids: true },
  { description: 'HNSW16,Flat', ids: true },
  { description: 'IVF16,Flat', ids: true },
];

async function build(description: string, ids: boolean): Promise<FaissIndex> {
  const index = await FaissIndex.create({ dimension: d, description, ids });
  await index.train(base);
  if (ids)
    await index.addWithIds(
      base,
      Array.from({ length: 3_000 }, (_, i) => 10 * i + 3),
    );
  else await index.add(base);
  return index;
}

describe('round trips give identical search results', () => {
  for (const { description, ids } of kinds) {
    it(`${description}${ids ? ' with ids' : ''}: file and buffer`, async () => {
      const original = await build(description, ids);
      const params = description.startsWith('HNSW')
        ? { efSearch: 32 }
        : description.startsWith('IVF')
          ? { nprobe: 4 }
          : {};
      const expected = await original.search(queries, 10, params);

      const path = join(dir, `${description}-${ids}.ocvx`);
      await original.write(path);
      const fromFile = await FaissIndex.read(path);
      const fromBuffer = await FaissIndex.fromBuffer(await original.toBuffer());
      for (const copy of [fromFile, fromBuffer]) {
        expect(copy.ntotal).toBe(original.ntotal);
        expect(copy.d).toBe(d);
        expect(copy.description).toBe(description);
        expect(copy.hasIds).toBe(ids);
        const got = await copy.search(queries, 10, params);
        expect(got.labels).toEqual(expected.labels);
        expect(got.distances).toEqual(expected.distances);
      }
    });
  }

  it('writes atomically: no temporary file is left, and a rewrite replaces the file', async () => {
    const sub = join(dir, 'atomic');
    mkdirSync(sub);
    const index = await build('Flat', false);
    const path = join(sub, 'index.ocvx');
    await index.write(path);
    const first = statSync(path).size;
    await index.add(randomVectors(10, d, 1));
    await index.write(path);
    expect(statSync(path).size).toBe(first + 10 * d * 4);
    expect(readdirSync(sub)).toEqual(['index.ocvx']);
    expect((await FaissIndex.read(path)).ntotal).toBe(3_010);
  });

  it('stamps the documented container: magic, version, length and XXH64 of the payload', async () => {
    const buffer = await (await build('Flat', true)).toBuffer();
    expect(buffer.subarray(0, 8).toString('latin1')).toBe('OCVECIDX');
    expect(buffer.readUInt32LE(8)).toBe(1);
    expect(buffer.readBigUInt64LE(16)).toBe(BigInt(buffer.length - 32));
    // The JS reference implementation first proves itself on published vectors.
    expect(xxh64(new Uint8Array())).toBe(0xef46db3751d8e999n);
    expect(xxh64(Buffer.from('abc'))).toBe(0x44bc2cf5ad770999n);
    expect(buffer.readBigUInt64LE(24)).toBe(xxh64(buffer.subarray(32)));
  });

  it('reads a plain FAISS serialisation (no container) when asked to', async () => {
    const buffer = await (await build('Flat', false)).toBuffer();
    const plain = join(dir, 'plain.faiss');
    writeFileSync(plain, buffer.subarray(32));
    const index = await FaissIndex.read(plain, { plainFaiss: true });
    expect(index.ntotal).toBe(3_000);
  });
});

describe('damaged files and buffers reject with a FaissError, never a crash', () => {
  async function expectCorrupt(bytes: Buffer, plainFaiss = false) {
    const code = 'CORRUPT_INDEX';
    const path = join(dir, `bad-${Math.random().toString(36).slice(2)}.ocvx`);
    writeFileSync(path, bytes);
    for (const attempt of [
      () => FaissIndex.read(path, { plainFaiss }),
      () => FaissIndex.fromBuffer(bytes, { plainFaiss }),
    ]) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FaissError);
      expect((error as FaissError).code).toBe(code);
    }
  }

  it.each([1, 8, 31, 32, 100, 1_000])('a container truncated to %i bytes', async (length) => {
    const buffer = await (await build('HNSW16,Flat', true)).toBuffer();
    await expectCorrupt(buffer.subarray(0, length));
  });

  it('a container with one flipped bit anywhere in the payload', async () => {
    const buffer = await (await build('IVF16,Flat', true)).toBuffer();
    for (const at of [32, 40, 1_000, buffer.length - 1]) {
      const damaged = Buffer.from(buffer);
      damaged[at]! ^= 0x10;
      await expectCorrupt(damaged);
    }
  });

  it('plain FAISS bytes, truncated, and garbage', async () => {
    const plain = (await (await build('HNSW16,Flat', false)).toBuffer()).subarray(32);
    for (const plainFaiss of [false, true]) {
      for (const length of [0, 3, 4, 50, 5_000, plain.length - 1])
        await expectCorrupt(plain.subarray(0, length), plainFaiss);
      await expectCorrupt(Buffer.from('this is not an index at all, just text\n'.repeat(50)), plainFaiss);
      await expectCorrupt(Buffer.from(randomVectors(1_000, 1, 5).buffer), plainFaiss);
    }
  });

  it('a missing file or a directory is an IO error that names the path', async () => {
    const missing = join(dir, 'nope.ocvx');
    await expect(FaissIndex.read(missing)).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining(missing),
    });
    await expect(FaissIndex.read(dir)).rejects.toMatchObject({ code: 'IO' });
    const index = await build('Flat', false);
    const target = join(dir, 'no-such-dir', 'x.ocvx');
    await expect(index.write(target)).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining(`cannot write ${target}`),
    });
  });

  it('the file on disk is the container the buffer holds', async () => {
    const index = await build('Flat', true);
    const path = join(dir, 'same.ocvx');
    await index.write(path);
    expect(readFileSync(path).equals(await index.toBuffer())).toBe(true);
  });
});
