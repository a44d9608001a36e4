/**
 * A first index of a linked git worktree starts from a copy of its main worktree's index
 * (indexing/seed.ts): what differs is indexed, the rest kept, and the main index is left
 * as it was.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Searcher } from '../../src/internal.js';
import type { IndexEvent } from '../../src/indexing/events.js';
import { indexStatus } from '../../src/indexing/status.js';
import { mainWorktreeOf } from '../../src/files/worktree.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { tempRepo } from '../helpers/repo.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A git repository of the search fixture, indexed, and a linked worktree of it on a new branch. */
async function repositoryWithWorktree() {
  const main = tempRepo(searchFixtureFiles(), { git: true });
  const parent = mkdtempSync(join(tmpdir(), 'ocvector-worktrees-'));
  cleanups.push(() => {
    main.cleanup();
    rmSync(parent, { recursive: true, force: true });
  });
  await index(main.root);
  const worktree = join(parent, 'feature');
  main.git('worktree', 'add', '-q', '-b', 'feature', worktree);
  return { main, worktree };
}

async function index(path: string, options: { seed?: boolean; indexDir?: string } = {}) {
  const { summary, log } = await indexBuiltin(path, options);
  return { summary, events: log.events };
}

function copies(events: IndexEvent[]) {
  return events.filter((event) => event.type === 'index-copied' || event.type === 'index-not-copied');
}

describe("a linked worktree's first index", () => {
  it("starts from the main worktree's index, and indexes only what differs", async () => {
    const { main, worktree } = await repositoryWithWorktree();
    expect(mainWorktreeOf(worktree)).toBe(main.root);
    writeFileSync(join(worktree, 'src/feature.ts'), 'export function settleInvoiceDisputes(): void {}\n');

    const { summary, events } = await index(worktree);
    expect(copies(events)).toEqual([{ type: 'index-copied', from: join(main.root, '.ocvector') }]);
    // The checkout's files are all new to the index, so each was read and hashed; only the new one was analysed.
    expect(summary.files).toMatchObject({ added: 1, changed: 0, deleted: 0 });
    expect(summary.files.unchanged).toBe(Object.keys(searchFixtureFiles()).length);
    expect(summary.elements.added).toBe(1);
    expect((await indexStatus(join(worktree, '.ocvector'))).repositories.map((r) => r.root)).toEqual([worktree]);

    const searcher = await Searcher.open({ indexDir: join(worktree, '.ocvector') });
    try {
      const [first] = (await searcher.search('settleInvoiceDisputes', { k: 1 })).results;
      expect(first).toMatchObject({ path: 'src/feature.ts', stale: false });
    } finally {
      await searcher.close();
    }
    // The main worktree's index is as it was: its own root, without the worktree's file.
    expect((await indexStatus(join(main.root, '.ocvector'))).repositories.map((r) => r.root)).toEqual([main.root]);
    expect((await index(main.root)).summary.files.added).toBe(0);
  });

  it('starts empty when asked to, when the index is named elsewhere, and when the main worktree has none', async () => {
    const { main, worktree } = await repositoryWithWorktree();
    const files = Object.keys(searchFixtureFiles()).length;

    const unseeded = await index(worktree, { seed: false });
    expect(copies(unseeded.events)).toEqual([]);
    expect(unseeded.summary.files.added).toBe(files);
    rmSync(join(worktree, '.ocvector'), { recursive: true });

    const elsewhere = mkdtempSync(join(tmpdir(), 'ocvector-named-'));
    cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
    const named = await index(worktree, { indexDir: join(elsewhere, 'index') });
    expect(copies(named.events)).toEqual([]);
    expect(named.summary.files.added).toBe(files);

    rmSync(join(main.root, '.ocvector'), { recursive: true });
    const alone = await index(worktree);
    expect(copies(alone.events)).toEqual([]);
    expect(alone.summary.files.added).toBe(files);
  });

  it('made by two runs at once: one copies it, the other goes on in that copy, and neither says otherwise', async () => {
    const { worktree } = await repositoryWithWorktree();
    const runs = await Promise.all([0, 1].map(() => indexBuiltin(worktree, { lockWaitMs: 60_000 })));
    const events = runs.flatMap(({ log }) => copies(log.events));
    expect(events.map((event) => event.type)).toEqual(['index-copied']);
    for (const { summary } of runs) expect(summary.elements.added).toBe(0);
  });

  it('says why it could not copy an index, and indexes afresh', async () => {
    const { main, worktree } = await repositoryWithWorktree();
    // A main index whose vectors file is gone: its copy would have every element embedded again.
    for (const name of ['vectors-g1.ocvx']) rmSync(join(main.root, '.ocvector', name));
    const { summary, events } = await index(worktree);
    expect(copies(events)).toEqual([
      { type: 'index-not-copied', from: join(main.root, '.ocvector'), why: expect.stringContaining('vectors-g1.ocvx') },
    ]);
    expect(summary.files.added).toBe(Object.keys(searchFixtureFiles()).length);
  });
});

describe('mainWorktreeOf', () => {
  it('is undefined for a main worktree, a directory outside git, and a submodule', () => {
    const main = tempRepo({ 'a.ts': 'x' }, { git: true });
    const plain = tempRepo({ 'a.ts': 'x' });
    const submodule = tempRepo({ '.git': 'gitdir: ../.git/modules/sub\n', 'a.ts': 'x' });
    cleanups.push(() => [main, plain, submodule].forEach((repo) => repo.cleanup()));
    expect(mainWorktreeOf(main.root)).toBeUndefined();
    expect(mainWorktreeOf(plain.root)).toBeUndefined();
    expect(mainWorktreeOf(submodule.root)).toBeUndefined();
  });
});
