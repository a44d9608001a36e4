/** What oc-vector-index promises in its messages exists: --wait for the lock, --timeout for Ollama, and a --status that agrees with the run just made. */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareDirectory } from '../../src/store/embedded/database.js';
import { WriteLock } from '../../src/store/embedded/lock.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { cleanedUpAfterEach, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';
import { type Run, runCli } from '../helpers/run-node.js';

const owned = cleanedUpAfterEach();
const index = (args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> =>
  runCli('oc-vector-index', ['--no-llm', ...args], { cwd, env, timeout: 60_000 });

describe('oc-vector-index messages and options', () => {
  it('the lock message names --wait, and --wait waits for the other indexer', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const indexDir = join(repo.root, '.ocvector');
    prepareDirectory(indexDir);
    const lock = await WriteLock.acquire(indexDir);
    try {
      const refused = await index(['.'], repo.root);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/another indexer .* is writing this index; .*oc-vector-index --wait <seconds>/);
      const waiting = index(['--wait', '20', '.'], repo.root);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      lock.release();
      const waited = await waiting;
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stdout).toMatch(/files +\d+ scanned/);
    } finally {
      lock.release();
    }
    expect((await index(['--wait', 'soon', '.'], repo.root)).stderr).toMatch(/--wait must be an integer from 0/);
  });

  it('--timeout sets the deadline of embedding requests to a server that does not answer', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const fake = (owned.fake = await FakeOllama.start({
      embed: () => ({ delayMs: 60_000, body: { embeddings: [] } }),
    }));
    const started = Date.now();
    const run = await index(['--embedder', 'ollama', '--timeout', '1', '.'], repo.root, { OLLAMA_HOST: fake.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/did not answer in time/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('--status right after indexing files written the same second lists nothing as modified', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    expect((await index(['.'], repo.root)).code).toBe(0);
    const status = await index(['--status', '--json'], repo.root);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).stale).toEqual({ modified: [], deleted: [], added: [] });
    repo.write('src/users.ts', `${SAMPLE_FILES['src/users.ts']}\nexport const added = 1;\n`);
    expect(JSON.parse((await index(['--status', '--json'], repo.root)).stdout).stale.modified).toEqual([
      'src/users.ts',
    ]);
  });
  it('says whose vectors were lost with the vectors file, and how to bring them back', async () => {
    const alpha = (owned.repo = tempRepo(SAMPLE_FILES));
    const beta = tempRepo(
      Object.fromEntries(
        Array.from({ length: 340 }, (_, i) => [
          `src/m${i}.ts`,
          `/** Module ${i}. */\nexport function value${i}(x: number): number {\n  return x + ${i};\n}\n\nexport class Holder${i} {\n  readonly amount = ${i};\n}\n`,
        ]),
      ),
    );
    try {
      const db = join(alpha.root, 'shared-index');
      expect((await index(['.', '--db', db, '--quiet'], alpha.root)).code).toBe(0);
      // Over a thousand elements: beta's run writes the vectors file, and beta's vectors are kept there alone.
      expect((await index(['.', '--db', db, '--quiet'], beta.root)).code).toBe(0);
      for (const name of readdirSync(db)) if (name.endsWith('.ocvx')) rmSync(join(db, name));
      const run = await index(['.', '--db', db], alpha.root);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(
        /the vectors of repository \S+ \(1020 elements\) were lost with the vectors file: .*\(oc-vector-index \S+ --repo \S+\)/,
      );
    } finally {
      beta.cleanup();
    }
  }, 120_000);
});
