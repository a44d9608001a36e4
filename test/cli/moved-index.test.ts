/**
 * What oc-vector-index says of an index that moved, and of a linked worktree's first
 * index started from the main checkout's (the built commands, spawned).
 */
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempRepo } from '../helpers/repo.js';
import { runCli } from '../helpers/run-node.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const parents: string[] = [];
afterEach(() => {
  for (const parent of parents.splice(0)) rmSync(parent, { recursive: true, force: true });
});

function scratch(): string {
  const parent = mkdtempSync(join(tmpdir(), 'ocvector-cli-moved-'));
  parents.push(parent);
  return parent;
}

const FILES = Object.keys(searchFixtureFiles()).length;

describe('oc-vector-index on an index that moved, and in a linked worktree', () => {
  it('searches a moved repository where it is, and says the next run followed it', async () => {
    const parent = scratch();
    const repo = tempRepo(searchFixtureFiles());
    const moved = join(parent, 'renamed');
    expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: repo.root })).code).toBe(0);
    renameSync(repo.root, moved);

    const search = await runCli('oc-vector-search', ['hash a password', '-k', '1', '--json'], { cwd: moved });
    expect(search.code).toBe(0);
    expect(JSON.parse(search.stdout).results[0]).toMatchObject({ stale: false, snippet: expect.any(String) });

    const index = await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: moved });
    expect(index.code).toBe(0);
    expect(index.stderr).toContain(`note: the index was moved or copied here from ${repo.root}`);
    expect(index.stdout).toMatch(new RegExp(`${FILES} unchanged`));
  });

  it("starts a worktree's first index from the main checkout's, unless --no-seed", async () => {
    const main = tempRepo(searchFixtureFiles(), { git: true });
    parents.push(main.root);
    expect((await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: main.root })).code).toBe(0);
    const worktree = join(scratch(), 'feature');
    main.git('worktree', 'add', '-q', '--detach', worktree);

    const seeded = await runCli('oc-vector-index', ['--no-llm', '.'], { cwd: worktree });
    expect(seeded.code).toBe(0);
    expect(seeded.stderr).toContain(`note: started from a copy of the main worktree's index, ${main.root}/.ocvector`);
    expect(seeded.stdout).toMatch(new RegExp(`0 added, 0 changed, 0 renamed, 0 deleted, ${FILES} unchanged`));

    rmSync(join(worktree, '.ocvector'), { recursive: true });
    const unseeded = await runCli('oc-vector-index', ['--no-llm', '--no-seed', '.'], { cwd: worktree });
    expect(unseeded.code).toBe(0);
    expect(unseeded.stderr).not.toContain('main worktree');
    expect(unseeded.stdout).toMatch(new RegExp(`${FILES} added`));
  });
});
