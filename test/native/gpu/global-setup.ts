/** Stops the GPU run at once, with one line, where it cannot run. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GpuInfo } from '../../../src/index.js';
import { GPU_ADDON } from './gpu-addon.js';

export default function checkGpu(): void {
  if (!existsSync(GPU_ADDON))
    throw new Error(`GPU tests did not run: no GPU addon at ${GPU_ADDON}; build it with bash scripts/build-gpu.sh`);
  const gpu = (createRequire(import.meta.url)(GPU_ADDON) as { gpuInfo(): GpuInfo }).gpuInfo();
  if (!gpu.compiled || gpu.devices === 0) throw new Error(`GPU tests did not run: ${gpu.reason}`);
}
