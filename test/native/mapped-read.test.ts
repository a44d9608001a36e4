/**
 * An IVF index file read `mapped`: its lists are mapped from the file rather
 * than read (no checksum pass; the structure is still checked), so opening
 * costs milliseconds and a search reads only the lists it probes. It answers
 * as a copy read whole does, refuses every change, copy and write, and a file
 * whose lists would run past its end is refused, never read past.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaissError, FaissIndex } from '../../src/index.js';
import { clusteredVectors } from '../helpers/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'ocvector-mapped-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const d = 16;
const base = clusteredVectors(2_000, d, 5);
const queries = clusteredVectors(8, d, 6);
const ids = Array.from({ length: 2_000 }, (_, i) => 10 * i + 1);

async function written(name: string, description: string): Promise<string> {
  const index = await FaissIndex.create({ dimension: d, description, ids: description === 'Flat' });
  await index.train(base);
  await index.addWithIds(base, ids);
  const path = join(dir, name);
  await index.write(path);
  index.close();
  return path;
}

describe('FaissIndex.read with mapped', () => {
  it('maps an IVF index, which answers as the file read whole does', async () => {
    const path = await written('ivf.ocvx', 'IVF16,Flat');
    const whole = await FaissIndex.read(path);
    const mapped = await FaissIndex.read(path, { mapped: true });
    expect([whole.mapped, mapped.mapped]).toEqual([false, true]);
    expect(mapped.ntotal).toBe(2_000);
    const expected = await whole.search(queries, 10, { nprobe: 4 });
    const got = await mapped.search(queries, 10, { nprobe: 4 });
    expect(got.labels).toEqual(expected.labels);
    expect(got.distances).toEqual(expected.distances);
    whole.close();
    mapped.close();
  });

  it('refuses to change, copy or write a mapped index, naming the way to one that can', async () => {
    const path = await written('readonly.ocvx', 'IVF16,Flat');
    const mapped = await FaissIndex.read(path, { mapped: true });
    const extra = clusteredVectors(2, d, 9);
    const actions: (() => Promise<unknown>)[] = [
      () => mapped.addWithIds(extra, [1, 2]),
      () => mapped.removeIds([11]),
      () => mapped.write(join(dir, 'copy.ocvx')),
      () => mapped.toBuffer(),
      () => mapped.copyTo('cpu'),
    ];
    for (const action of actions) {
      const error = await Promise.resolve()
        .then(action)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FaissError);
      expect((error as FaissError).code).toBe('UNSUPPORTED');
      expect((error as Error).message).toMatch(/mapped from its file: read the file again without mapped/);
    }
    expect(mapped.ntotal).toBe(2_000);
    mapped.close();
  });

  it('reads other index types whole, as usual', async () => {
    const path = await written('flat.ocvx', 'Flat');
    const flat = await FaissIndex.read(path, { mapped: true });
    expect(flat.mapped).toBe(false);
    await flat.addWithIds(clusteredVectors(1, d, 7), [99_999]);
    expect(flat.ntotal).toBe(2_001);
    flat.close();
  });

  it('refuses a file whose lists would run past its end, without reading past it', async () => {
    const path = await written('damaged.ocvx', 'IVF16,Flat');
    const bytes = readFileSync(path);
    // The inverted lists follow the fourcc "ilar": nlist and code size (8 bytes each), "full", the sizes'
    // count (8 bytes), then each list's size: the first one made huge.
    const lists = bytes.indexOf('ilar', 0, 'latin1');
    expect(lists).toBeGreaterThan(0);
    const firstSize = lists + 4 + 8 + 8 + 4 + 8;
    bytes.writeBigUInt64LE(1n << 40n, firstSize);
    const damaged = join(dir, 'damaged-lists.ocvx');
    writeFileSync(damaged, bytes);
    const error = await FaissIndex.read(damaged, { mapped: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FaissError);
    expect((error as FaissError).code).toBe('CORRUPT_INDEX');
    // Read whole, the same file fails its checksum.
    await expect(FaissIndex.read(damaged)).rejects.toThrow(/checksum mismatch/);
  });

  it('rejects a bad mapped option, and mapping an index on a GPU', async () => {
    const path = await written('options.ocvx', 'IVF16,Flat');
    await expect(FaissIndex.read(path, { mapped: 1 as unknown as boolean })).rejects.toThrow(
      /mapped must be a boolean/,
    );
    await expect(FaissIndex.read(path, { mapped: true, device: 'gpu' })).rejects.toThrow(/only an index on the CPU/);
  });
});
