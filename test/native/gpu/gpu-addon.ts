/** The GPU addon the GPU tests load: OCVECTOR_NATIVE_PATH, or the one scripts/build-gpu.sh builds. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import type { GpuInfo } from '../../../src/index.js';
import { skippedName } from '../../helpers/skip-reason.js';

export const GPU_ADDON =
  process.env.OCVECTOR_NATIVE_PATH ??
  fileURLToPath(new URL('../../../build/gpu/Release/ocvector.node', import.meta.url));

/** Device memory this process holds on GPU 0, in MiB, as nvidia-smi reports it. */
export function deviceMemoryMiB(pid = process.pid): number {
  const rows = execFileSync('nvidia-smi', ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'], {
    encoding: 'utf8',
  });
  for (const line of rows.split('\n')) {
    const [who, used] = line.split(',').map((field) => field.trim());
    if (Number(who) === pid) return Number(used);
  }
  return 0;
}

/** Why the GPU tests cannot run here (no GPU addon, no CUDA device), or undefined where they can. Loads the addon. */
export function gpuUnavailable(): string | undefined {
  if (!existsSync(GPU_ADDON)) return `no GPU addon at ${GPU_ADDON}; build it with bash scripts/build-gpu.sh`;
  const gpu = (createRequire(import.meta.url)(GPU_ADDON) as { gpuInfo(): GpuInfo }).gpuInfo();
  return gpu.compiled && gpu.devices > 0 ? undefined : gpu.reason;
}

/**
 * A suite of GPU tests: run where a GPU can run it, else reported skipped with the reason. Where
 * the caller requires the GPU (OCVECTOR_GPU_REQUIRED=1: the default suite runs this one only where
 * it saw a device and an addon), a suite that cannot run fails with the reason instead, so that
 * a run whose every test was skipped never passes for one that ran them.
 */
export function describeGpu(name: string, body: () => void): void {
  const reason = gpuUnavailable();
  if (reason !== undefined && process.env.OCVECTOR_GPU_REQUIRED === '1') {
    describe(name, () => {
      it('can run here', () => {
        throw new Error(`the GPU tests were required but cannot run: ${reason}`);
      });
    });
    return;
  }
  describe.skipIf(reason !== undefined)(reason === undefined ? name : skippedName(name, reason), body);
}
