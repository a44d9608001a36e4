/**
 * The bookkeeping behind one set of FAISS GPU resources per device
 * (native/src/shared_per_device.h), checked without a GPU: a small C++
 * program (test/native/cpp/) compiled against the header with a stand-in for
 * the resources. Whether FAISS's own resources are shared is checked on a GPU
 * (test/native/gpu/, gpuInfo().sharedResources and device memory).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const native = fileURLToPath(new URL('../../native/src', import.meta.url));
const source = fileURLToPath(new URL('./cpp/shared_per_device_test.cc', import.meta.url));

it('one object per device, shared while held, freed with the last holder, safe across threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocvector-shared-'));
  try {
    const program = join(dir, 'shared_per_device_test');
    execFileSync(
      'g++',
      ['-std=c++17', '-O1', '-Wall', '-Wextra', '-Werror', '-pthread', '-I', native, source, '-o', program],
      {
        stdio: 'pipe',
      },
    );
    expect(execFileSync(program, { encoding: 'utf8' })).toMatch(/^ok \d+ checks$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
