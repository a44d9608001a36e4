import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempRepo } from '../helpers/repo.js';

// The README's Quick start runs `npm run demo` on the compiled package (dist/,
// imported by its own name): these run the examples the same way.
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });

describe('the Quick start demo', () => {
  it('indexes a directory, searches it, and re-indexes only what changed', () => {
    const repo = tempRepo();
    try {
      cpSync(join(root, 'src'), join(repo.root, 'src'), { recursive: true });
      const env = { OCVECTOR_EMBEDDER: 'builtin', OCVECTOR_LLM: 'off' };
      const first = run('examples/index-and-search.mjs', [join(repo.root, 'src'), 'write the index file atomically'], env);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/with builtin:v1:512:\n  files: \d+ added/);
      const hits = [...first.stdout.matchAll(/^ {2}(\d\.\d{3}) {2}(\S+):(\d+)-(\d+) {2}(\S+) (\S+)$/gm)];
      expect(hits).toHaveLength(5);
      expect(hits[0]![6]).toBe('FaissIndex.write'); // "Writes the index atomically (temporary file, fsync, rename)"
      expect(existsSync(join(repo.root, 'src', '.ocvector', 'index.db'))).toBe(true);
      const second = run('examples/index-and-search.mjs', [join(repo.root, 'src'), 'write the index file atomically'], env);
      expect(second.stdout).toMatch(/files: 0 added, 0 changed, \d+ unchanged/);
      expect(second.stdout).toMatch(/\(0 embedded now/);
    } finally {
      repo.cleanup();
    }
  });

  it('shows the FAISS binding: an exact and an HNSW index, searched, saved and reloaded', () => {
    const result = run('examples/faiss-demo.mjs');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/FAISS on openblas \(openmp\)/);
    const recall = Number(/HNSW recall@10 against exact search: ([\d.]+)/.exec(result.stdout)?.[1]);
    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(result.stdout).toMatch(/reloaded index gives identical results/);
  });
});
