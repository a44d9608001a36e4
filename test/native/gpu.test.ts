/**
 * The GPU as the default suite sees it. The GPU tests themselves
 * (test/native/gpu/, `npm run test:gpu`) need a CUDA device and the GPU addon
 * (scripts/build-gpu.sh), and run only there; this file runs everywhere and
 * checks what needs no GPU: that gpuInfo() answers coherently, that a GPU
 * request without one fails or falls back and says why, the checks made
 * before any GPU call, and copies between devices on the CPU. Where a device
 * and the GPU addon are, it runs the GPU suite too; elsewhere that is one
 * skipped test here, with the reason.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FaissError, FaissIndex, gpuInfo } from '../../src/index.js';
import { GPU_MAX_K, cannotRemoveMessage, checkGpuSearch } from '../../src/native/validate.js';
import { randomVectors } from '../helpers/vectors.js';
import { rejection } from '../helpers/rejection.js';
import { skippedName } from '../helpers/skip-reason.js';
import { GPU_ADDON } from './gpu/gpu-addon.js';

const gpu = gpuInfo();
const nvidiaSmi = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8' });
const deviceHere = nvidiaSmi.status === 0 && /^GPU \d/m.test(nvidiaSmi.stdout);

// The GPU suite is its own (npm run test:gpu, test/native/gpu/): where a CUDA device and the GPU addon are here,
// this suite runs it too and passes only when it passes; elsewhere it is one skipped test, with the reason.
const gpuAddonHere = existsSync(GPU_ADDON);
const gpuSuiteReason = !deviceHere
  ? `no CUDA device here (and ${gpu.reason}); on a machine with an NVIDIA GPU: npm run test:gpu`
  : 'no GPU addon: build it with bash scripts/build-gpu.sh (npm run test:gpu does)';
it.skipIf(!deviceHere || !gpuAddonHere)(
  deviceHere && gpuAddonHere
    ? 'the GPU tests (test/native/gpu/)'
    : skippedName('the GPU tests (test/native/gpu/)', gpuSuiteReason),
  () => {
    const run = spawnSync(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/native/gpu/vitest.config.ts'],
      // Required: a GPU suite that finds it cannot run fails rather than reporting its tests skipped.
      { encoding: 'utf8', timeout: 1_800_000, env: { ...process.env, OCVECTOR_GPU_REQUIRED: '1' } },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  },
  1_800_000,
);

describe('GPU detection', () => {
  // This suite runs the default addon (binding.gyp, a CPU-only FAISS); the GPU addon's own answers are tested by test:gpu.
  it('gpuInfo() of a CPU-only build: no device, no shared resources, and a reason that says what to do', () => {
    expect(gpu).toEqual({
      compiled: false,
      devices: 0,
      sharedResources: 0,
      reason: expect.stringMatching(/CPU-only FAISS.*scripts\/build-gpu\.sh/),
    });
  });

  it("device 'gpu' fails with GPU and the reason; 'auto' stays on the CPU and says why", async () => {
    const d = 8;
    const vectors = randomVectors(64, d, 1);
    const cpu = await FaissIndex.create({ dimension: d });
    await cpu.add(vectors);
    const bytes = await cpu.toBuffer();
    for (const call of [
      () => FaissIndex.create({ dimension: d, device: 'gpu' }),
      () => FaissIndex.fromBuffer(bytes, { device: 'gpu' }),
      () => cpu.copyTo('gpu'),
    ]) {
      const error = await rejection(call);
      expect(error.code).toBe('GPU');
      expect(error.message).toContain(gpu.reason);
    }
    const auto = await cpu.copyTo('auto');
    expect(auto.device).toBe('cpu');
    expect(auto.deviceReason).toBe(gpu.reason);
    expect(auto.ntotal).toBe(64);
    auto.close();
    cpu.close();
  });
});

describe('checks made before any GPU call', () => {
  it(`k and nprobe past FAISS's GPU limit (${GPU_MAX_K}) are INVALID_ARGUMENT naming the limit`, () => {
    expect(() => checkGpuSearch(GPU_MAX_K, GPU_MAX_K)).not.toThrow();
    expect(() => checkGpuSearch(1, undefined)).not.toThrow();
    for (const [call, message] of [
      [() => checkGpuSearch(GPU_MAX_K + 1, undefined), /k is 2049, more than the 2048 neighbours a GPU index returns/],
      [() => checkGpuSearch(10, GPU_MAX_K + 1), /nprobe is 2049, more than the 2048 lists a GPU index visits/],
    ] as const) {
      const error = (() => {
        try {
          call();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(FaissError);
      expect((error as FaissError).code).toBe('INVALID_ARGUMENT');
      expect((error as FaissError).message).toMatch(message);
    }
  });

  it('a removal from a GPU index is refused saying GPU indexes cannot remove, and what to do', () => {
    expect(cannotRemoveMessage('Flat', 'gpu')).toMatch(
      /is on a GPU, and FAISS's GPU indexes cannot remove vectors: remove them from a CPU copy \(copyTo\('cpu'\)\) and place that on the GPU again/,
    );
    expect(cannotRemoveMessage('HNSW32,Flat', 'cpu')).toMatch(/cannot remove vectors; rebuild it without them/);
  });
});

describe('copyTo on the CPU', () => {
  const d = 16;
  const n = 600;
  const vectors = randomVectors(n, d, 7);
  const queries = randomVectors(20, d, 8);

  it.each([
    ['Flat', false],
    ['Flat', true],
    ['HNSW16,Flat', false],
    ['IVF8,Flat', false],
    ['IVF8,Flat', true],
    ['IVF8,SQ8', false],
  ] as const)('%s (ids: %s): an independent copy that answers the same', async (description, ids) => {
    const original = await FaissIndex.create({ dimension: d, description, ids, metric: 'l2' });
    if (!original.isTrained) await original.train(vectors);
    if (ids)
      await original.addWithIds(
        vectors,
        Array.from({ length: n }, (_, i) => 1000 + i),
      );
    else await original.add(vectors);
    const copy = await original.copyTo('cpu');
    expect(copy.device).toBe('cpu');
    expect(copy.deviceReason).toBe('CPU requested');
    expect({ kind: copy.kind, description: copy.description, ids: copy.hasIds, ntotal: copy.ntotal }).toEqual({
      kind: original.kind,
      description: original.description,
      ids: original.hasIds,
      ntotal: n,
    });
    const params = original.kind === 'ivf' ? { nprobe: 8 } : {};
    const before = await original.search(queries, 10, params);
    expect(await copy.search(queries, 10, params)).toEqual(before);
    // Independent: a change to one leaves the other as it was, and either outlives the other.
    const more = randomVectors(10, d, 9);
    if (ids)
      await copy.addWithIds(
        more,
        Array.from({ length: 10 }, (_, i) => 5000 + i),
      );
    else await copy.add(more);
    expect(original.ntotal).toBe(n);
    original.close();
    expect(copy.ntotal).toBe(n + 10);
    expect((await copy.search(queries, 10, params)).nq).toBe(20);
    copy.close();
  });
});
