/** oc-vector-index --max-file-size and --drop, as a user runs them. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSize } from '../../src/cli/program.js';
import { type TempRepo, tempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';

const made: TempRepo[] = [];
afterEach(() => {
  for (const repo of made.splice(0)) repo.cleanup();
});

function index(args: string[], cwd: string) {
  return runCli('oc-vector-index', args, { cwd });
}

function repoWithABigFile(): TempRepo {
  const repo = tempRepo({
    'small.ts': 'export const small = 1;\n',
    'big.ts': `export const big = [\n${'  1,\n'.repeat(1_000)}];\n`,
  });
  made.push(repo);
  return repo;
}

describe('oc-vector-index options', () => {
  it('--max-file-size skips larger files, each with its reason', async () => {
    const repo = repoWithABigFile();
    const run = await index(['--no-llm', '--embedder', 'builtin', '--max-file-size', '2k', '--json', '.'], repo.root);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.summary.files).toMatchObject({ added: 1, skipped: 1 });
    expect(JSON.stringify(report)).toMatch(/big\.ts[^}]*over the limit of 2048/);
  });

  it('--max-file-size refuses a size it cannot read', async () => {
    const run = await index(['--max-file-size', 'lots', '.'], repoWithABigFile().root);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /--max-file-size must be a size from 1 byte to 1024M \(bytes, or with k, M or G\), not "lots"/,
    );
    expect([
      parseSize('1048576', 'x'),
      parseSize('512k', 'x'),
      parseSize('2M', 'x'),
      parseSize('1G', 'x'),
      parseSize('1.5KiB', 'x'),
    ]).toEqual([1 << 20, 512 << 10, 2 << 20, 1 << 30, 1536]);
  });

  it('--drop deletes the index, and says so; a second --drop finds none', async () => {
    const repo = repoWithABigFile();
    expect((await index(['--no-llm', '--embedder', 'builtin', '.'], repo.root)).code).toBe(0);
    expect(existsSync(join(repo.root, '.ocvector'))).toBe(true);
    const dropped = await index(['--drop'], repo.root);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toMatch(/^deleted the index at .*\.ocvector \(\d+ files\)\n$/);
    expect(readdirSync(repo.root).sort()).toEqual(['big.ts', 'small.ts']);
    const again = await index(['--drop'], repo.root);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/no index found at or above .*: nothing to delete/);
  });
});
