import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README's Quick start runs `npm run demo` on the compiled package (dist/,
// imported by its own name): this runs it the same way.
describe('the Quick start demo', () => {
  it('builds an exact and an HNSW index, searches, saves and reloads them', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const result = spawnSync(process.execPath, ['examples/demo.mjs'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/FAISS on openblas \(openmp\)/);
    const recall = Number(/HNSW recall@10 against exact search: ([\d.]+)/.exec(result.stdout)?.[1]);
    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(result.stdout).toMatch(/reloaded index gives identical results/);
  });
});
