import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FaissError, FaissIndex, setNumThreads } from '../../src/index.js';
import { addonCandidates, loadAddon, loadAddonFrom } from '../../src/native/addon.js';
import { randomVectors } from '../helpers/vectors.js';

const d = 8;
let index: FaissIndex;
beforeAll(async () => {
  index = await FaissIndex.create({ dimension: d, metric: 'l2' });
  await index.add(randomVectors(100, d, 1));
});

/** Each bad call must reject (or throw) a FaissError with this code and message. */
async function expectRejected(call: () => Promise<unknown> | unknown, code: string, message: RegExp) {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  expect(error, 'the call should have failed').toBeInstanceOf(FaissError);
  expect((error as FaissError).code).toBe(code);
  expect((error as FaissError).message).toMatch(message);
}

describe('bad arguments are clear FaissErrors', () => {
  it.each([
    ['a wrong length', () => index.search(new Float32Array(d + 1), 1), /not a positive multiple of the dimension 8/],
    ['an empty array', () => index.add(new Float32Array(0)), /not a positive multiple/],
    ['a dimension mismatch', () => index.search(new Float32Array(4), 1), /dimension 8/],
    [
      'a plain array',
      () => index.search([1, 2, 3, 4, 5, 6, 7, 8] as unknown as Float32Array, 1),
      /must be a Float32Array/,
    ],
    ['a Float64Array', () => index.add(new Float64Array(d) as unknown as Float32Array), /must be a Float32Array/],
    ['k = 0', () => index.search(new Float32Array(d), 0), /k must be an integer from 1/],
    ['k = 1.5', () => index.search(new Float32Array(d), 1.5), /k must be an integer/],
    ['k > ntotal', () => index.search(new Float32Array(d), 101), /k is 101 but the index holds only 100/],
    [
      'efSearch on a Flat index',
      () => index.search(new Float32Array(d), 1, { efSearch: 10 }),
      /efSearch applies to HNSW/,
    ],
    ['nprobe = 0', () => index.search(new Float32Array(d), 1, { nprobe: 0 }), /nprobe must be an integer/],
    ['non-integer ids', () => index.addWithIds(new Float32Array(d), [1.5]), /ids\[0\] must be a non-negative integer/],
    ['negative ids', () => index.removeIds([-1]), /ids\[0\] must be a non-negative integer/],
    ['an unsafe number id', () => index.removeIds([2 ** 60]), /non-negative integer/],
    ['ids of the wrong count', () => index.addWithIds(new Float32Array(2 * d), [1]), /ids has 1 entries for 2 vectors/],
    ['a reconstruct beyond ntotal', () => index.reconstruct(100), /no vector with id 100/],
    ['an empty path', () => index.write(''), /non-empty file path/],
  ])('%s', async (_name, call, message) => {
    await expectRejected(call, 'INVALID_ARGUMENT', message);
    expect(index.ntotal).toBe(100);
  });

  it.each([
    ['NaN', Number.NaN, /NaN at row 2, column 3/],
    ['Infinity', Number.POSITIVE_INFINITY, /infinite value at row 2, column 3/],
    ['-Infinity', Number.NEGATIVE_INFINITY, /infinite value at row 2, column 3/],
  ])('%s in vectors or queries, found on the worker thread, nothing added', async (_name, value, message) => {
    const vectors = randomVectors(5, d, 2);
    vectors[2 * d + 3] = value;
    await expectRejected(() => index.add(vectors), 'INVALID_ARGUMENT', message);
    await expectRejected(() => index.search(vectors, 1), 'INVALID_ARGUMENT', message);
    expect(index.ntotal).toBe(100);
  });

  it.each([
    [{ dimension: 0 }, /dimension must be an integer from 1/],
    [{ dimension: 2.5 }, /dimension must be an integer/],
    [{ dimension: 8, description: 'Bogus42' }, /could not parse index string Bogus42/],
    [{ dimension: 8, description: 'IVF4,PQ3' }, /FAISS/],
    [{ dimension: 8, description: 'Flat; rm -rf' }, /must be a FAISS factory string/],
    [{ dimension: 8, metric: 'cosine' }, /metric must be 'ip'/],
    [{ dimension: 8, device: 'tpu' }, /device must be 'cpu', 'gpu' or 'auto'/],
  ])('create(%o)', async (options, message) => {
    await expectRejected(() => FaissIndex.create(options as never), 'INVALID_ARGUMENT', message);
  });

  it('adding with ids to an index that numbers its vectors, or without ids to one that maps them', async () => {
    await expectRejected(() => index.addWithIds(new Float32Array(d), [5]), 'UNSUPPORTED', /create it with ids: true/);
    const mapped = await FaissIndex.create({ dimension: d, ids: true });
    await expectRejected(() => mapped.add(new Float32Array(d)), 'UNSUPPORTED', /use addWithIds/);
    await mapped.addWithIds(randomVectors(2, d, 3), [7, 9]);
    await expectRejected(
      () => mapped.addWithIds(new Float32Array(d), [9]),
      'INVALID_ARGUMENT',
      /id 9 is already in the index/,
    );
    await expectRejected(
      () => mapped.addWithIds(new Float32Array(2 * d), [11, 11]),
      'INVALID_ARGUMENT',
      /id 11 is already/,
    );
    expect(mapped.ntotal).toBe(2);
    await expectRejected(() => mapped.reconstruct(8), 'INVALID_ARGUMENT', /no vector with id 8/);
  });

  it('searching an empty index', async () => {
    const empty = await FaissIndex.create({ dimension: d });
    await expectRejected(() => empty.search(new Float32Array(d), 1), 'INVALID_ARGUMENT', /index is empty/);
  });

  it('a closed index refuses every call; close is idempotent', async () => {
    const closing = await FaissIndex.create({ dimension: d });
    await closing.add(randomVectors(10, d, 4));
    closing.close();
    closing.close();
    expect(closing.closed).toBe(true);
    expect(closing.d).toBe(d);
    for (const call of [
      () => closing.search(new Float32Array(d), 1),
      () => closing.add(new Float32Array(d)),
      () => closing.train(new Float32Array(d)),
      () => closing.write('/tmp/never-written.ocvx'),
      () => closing.toBuffer(),
      () => closing.reconstruct(0),
      () => closing.copyTo('cpu'),
      () => closing.ntotal,
    ]) {
      await expectRejected(call, 'INDEX_CLOSED', /closed/);
    }
  });

  it("device 'gpu' without a GPU build rejects; 'auto' stays on the CPU and says why", async () => {
    await expectRejected(() => FaissIndex.create({ dimension: d, device: 'gpu' }), 'GPU', /CPU-only FAISS/);
    const auto = await FaissIndex.create({ dimension: d, device: 'auto' });
    expect(auto.device).toBe('cpu');
    expect(auto.deviceReason).toMatch(/CPU-only FAISS/);
  });

  it('setNumThreads validates its argument', () => {
    expect(() => setNumThreads(-1)).toThrow(FaissError);
    expect(() => setNumThreads(1.5)).toThrow(/threads must be an integer/);
  });
});

describe('the raw addon refuses wrong arguments too (defence in depth)', () => {
  // Calls that bypass the facade must still be JS exceptions, not undefined
  // behaviour in C++. The process surviving this file is part of the test.
  const addon = loadAddon();
  const raw = addon.NativeIndex as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;

  it.each([
    ['create with no arguments', () => raw.create!()],
    ['create with a string dimension', () => raw.create!('8', 'Flat', 'ip', false, 'cpu')],
    ['create with a huge dimension', () => raw.create!(1e9, 'Flat', 'ip', false, 'cpu')],
    ['create with an unknown metric', () => raw.create!(8, 'Flat', 'cos', false, 'cpu')],
    ['read with a number path', () => raw.read!(42, 'cpu')],
    ['fromBuffer with a string', () => raw.fromBuffer!('abc', 'cpu')],
    [
      'the constructor with a plain object',
      () => new (addon.NativeIndex as unknown as new (x: unknown) => unknown)({}),
    ],
    ['setNumThreads with a string', () => addon.setNumThreads('2' as unknown as number)],
  ])('%s', async (_name, call) => {
    await expectRejected(call, 'INVALID_ARGUMENT', /must be|cannot be constructed/);
  });

  it('instance methods with wrong types', async () => {
    const native = await addon.NativeIndex.create(4, 'Flat', 'ip', false, 'cpu');
    const anyNative = native as unknown as Record<string, (...args: unknown[]) => unknown>;
    await native.add(new Float32Array(8));
    await expectRejected(() => anyNative.search!(new Float32Array(4), -3), 'INVALID_ARGUMENT', /k must be/);
    await expectRejected(
      () => anyNative.search!(new Float32Array(5), 1),
      'INVALID_ARGUMENT',
      /multiple of the dimension/,
    );
    await expectRejected(() => anyNative.add!(new Uint8Array(16)), 'INVALID_ARGUMENT', /Float32Array/);
    await expectRejected(() => anyNative.addWithIds!(new Float32Array(4), [1]), 'INVALID_ARGUMENT', /BigInt64Array/);
    await expectRejected(() => anyNative.removeIds!(new Float32Array(1)), 'INVALID_ARGUMENT', /BigInt64Array/);
    await expectRejected(() => anyNative.reconstruct!(1), 'INVALID_ARGUMENT', /bigint/);
    await expectRejected(() => anyNative.search!(new Float32Array(4), 1, 0.5), 'INVALID_ARGUMENT', /efSearch/);
    expect(native.ntotal).toBe(2);
  });
});

describe('loading failures explain how to fix them', () => {
  it('no addon at any candidate path: names the paths and concrete fixes', () => {
    let error: unknown;
    try {
      loadAddonFrom(['/nonexistent/a/ocvector.node', '/nonexistent/b/ocvector.node']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FaissError);
    expect((error as FaissError).code).toBe('ADDON_LOAD_FAILED');
    expect((error as FaissError).message).toMatch(/has not been built/);
    expect((error as FaissError).message).toMatch(/nonexistent\/a\/ocvector\.node, \/nonexistent\/b/);
    expect((error as FaissError).message).toMatch(
      /Possible solutions:[\s\S]*scripts\/setup\.sh[\s\S]*apt-get install -y libfaiss-dev/,
    );
  });

  it('a file that is not a loadable addon', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-loader-'));
    const fake = join(dir, 'ocvector.node');
    writeFileSync(fake, 'not a shared object');
    try {
      expect(() => loadAddonFrom([fake])).toThrow(
        /cannot load the native FAISS addon: .*(invalid ELF header|too short)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a configured addon path (the CLIs: OCVECTOR_NATIVE_PATH) comes first among the candidates', () => {
    expect(addonCandidates('/custom/ocvector.node')[0]).toBe('/custom/ocvector.node');
    expect(addonCandidates('/custom/ocvector.node')[1]).toMatch(/build\/Release\/ocvector\.node$/);
    expect(addonCandidates()[0]).toMatch(/build\/Release\/ocvector\.node$/);
  });
});
