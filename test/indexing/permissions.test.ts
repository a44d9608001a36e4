/** Everything in an index directory is private, whatever the umask, and an existing directory given as the index directory is made private. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIsolated, settled } from '../helpers/isolated.js';
import { SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

const repo = tempRepo(SAMPLE_FILES);
const scratch = mkdtempSync(join(tmpdir(), 'ocvector-perm-'));
afterAll(() => {
  repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('index permissions', () => {
  it('under umask 000, with an existing 0777 directory: files 0600, directory 0700', async () => {
    const indexDir = join(scratch, 'shared-db');
    mkdirSync(indexDir);
    const run = await runIsolated(`
      import { chmodSync, readdirSync, statSync } from 'node:fs';
      import { join } from 'node:path';
      process.umask(0o000);
      chmodSync(${JSON.stringify(indexDir)}, 0o777);
      const { Indexer } = await import(DIST);
      await new Indexer({ path: ${JSON.stringify(repo.root)}, indexDir: ${JSON.stringify(indexDir)}, embedder: 'builtin', llm: false, threads: 1 }).run();
      const modes = Object.fromEntries(readdirSync(${JSON.stringify(indexDir)}).map((name) => [name.replace(/g\\d+/, 'gN'), (statSync(join(${JSON.stringify(indexDir)}, name)).mode & 0o777).toString(8)]));
      console.log(JSON.stringify({ dir: (statSync(${JSON.stringify(indexDir)}).mode & 0o777).toString(8), modes }));`);
    const { dir, modes } = settled(run) as { dir: string; modes: Record<string, string> };
    expect(dir).toBe('700');
    expect(modes['vectors-gN.ocvx']).toBe('600');
    expect(modes['index.db']).toBe('600');
    expect(Object.entries(modes).filter(([, mode]) => mode !== '600')).toEqual([]);
  });
});
