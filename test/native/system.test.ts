import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { blasInfo, faissVersion, getNumThreads, gpuInfo, setNumThreads } from '../../src/index.js';

describe('the addon runs on the fast configuration without being told', () => {
  // Debian's FAISS links the generic libblas.so.3: the reference BLAS unless
  // OpenBLAS is installed, 25x slower for batched search. With OpenBLAS on
  // OpenMP, OpenMP threads must wait passively or they spin against Node's
  // threads on a small machine (25 ms instead of 2.3 ms per batched query).
  it('FAISS runs on OpenBLAS built for OpenMP, with passive OpenMP waiting', () => {
    const blas = blasInfo();
    expect(blas.vendor).toBe('openblas');
    expect(blas.threading).toBe('openmp');
    expect(blas.config).toMatch(/OpenBLAS/);
    expect(blas.library).toMatch(/libblas\.so/);
    expect(blas.ompWaitPolicy).toBe('PASSIVE');
    // The kernel OpenBLAS chose for this CPU, named as OPENBLAS_CORETYPE names them.
    expect(blas.coreType).toMatch(/^[A-Za-z][A-Za-z0-9_]+$/);
  });

  it('reports the kernel OPENBLAS_CORETYPE asks for', () => {
    const addonUrl = new URL('../../build/Release/ocvector.node', import.meta.url).pathname;
    const result = spawnSync(
      process.execPath,
      ['-e', `console.log(JSON.stringify(require(${JSON.stringify(addonUrl)}).blasInfo()))`],
      {
        encoding: 'utf8',
        env: { ...process.env, OPENBLAS_CORETYPE: 'Prescott' },
      },
    );
    expect(JSON.parse(result.stdout).coreType.toLowerCase()).toBe('prescott');
  });

  it("keeps a user's own OMP_WAIT_POLICY", () => {
    const addonUrl = new URL('../../build/Release/ocvector.node', import.meta.url).pathname;
    const result = spawnSync(
      process.execPath,
      ['-e', `console.log(JSON.stringify(require(${JSON.stringify(addonUrl)}).blasInfo()))`],
      { encoding: 'utf8', env: { ...process.env, OMP_WAIT_POLICY: 'ACTIVE' } },
    );
    expect(JSON.parse(result.stdout).ompWaitPolicy).toBe('ACTIVE');
  });

  it('reports the FAISS version and why there is no GPU', () => {
    expect(faissVersion()).toMatch(/^\d+\.\d+\.\d+$/);
    const gpu = gpuInfo();
    expect(gpu).toEqual({
      compiled: false,
      devices: 0,
      sharedResources: 0,
      reason: expect.stringMatching(/CPU-only FAISS/),
    });
  });

  it('thread count: defaults to all cores, settable, 0 restores the default', () => {
    const all = getNumThreads();
    expect(all).toBeGreaterThanOrEqual(1);
    setNumThreads(1);
    expect(getNumThreads()).toBe(1);
    setNumThreads(0);
    expect(getNumThreads()).toBe(all);
  });
});
