/** The GPU addon the GPU tests load: OCVECTOR_NATIVE_PATH, or the one scripts/build-gpu.sh builds. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
