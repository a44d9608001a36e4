/**
 * An index moved or copied with its repository (renamed, moved, `cp -r`, a container
 * image, a restored cache): searched at once where it lies now, and brought up to date
 * there without analysing or embedding an unchanged file again (relocation.ts).
 */
import { cpSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Searcher } from '../../src/internal.js';
import { indexStatus } from '../../src/indexing/status.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { prepared } from '../../src/store/embedded/sqlite.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { searchFixtureFiles, storeSources } from '../helpers/search-repo.js';

const QUERY = 'hash a password';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function fixture(): TempRepo {
  const repo = tempRepo(searchFixtureFiles());
  cleanups.push(() => repo.cleanup());
  return repo;
}

/** A new directory holding `root` under its own name, as `mv root <new directory>/` leaves it. */
function moveAway(root: string): string {
  const parent = mkdtempSync(join(tmpdir(), 'ocvector-moved-'));
  cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
  const moved = join(parent, basename(root));
  renameSync(root, moved);
  return moved;
}

async function index(path: string, options: { indexDir?: string; repo?: string } = {}) {
  const { summary, log } = await indexBuiltin(path, options);
  const moves = log
    .of('vector-index')
    .flatMap(({ event }) => (event.type === 'index-moved' ? [{ from: event.from, to: event.to }] : []));
  return { summary, moves };
}

/** The first results of the query on the index at `indexDir`: path, stale, and whether the file was read. */
async function answers(indexDir: string) {
  const searcher = await Searcher.open({ indexDir });
  try {
    const response = await searcher.search(QUERY, { k: 3 });
    expect(response.results.length).toBeGreaterThan(0);
    return response.results.map((r) => ({ repo: r.repo, path: r.path, stale: r.stale, read: r.snippet !== undefined }));
  } finally {
    await searcher.close();
  }
}

async function roots(indexDir: string): Promise<string[]> {
  return (await indexStatus(indexDir)).repositories.map((repository) => repository.root);
}

describe('an index moved or copied with its repository', () => {
  it('is searched where it lies now, and re-indexed there reading and embedding nothing again', async () => {
    const repo = fixture();
    const files = Object.keys(searchFixtureFiles()).length;
    await index(repo.root);
    const before = await answers(join(repo.root, '.ocvector'));
    expect(before.every((answer) => !answer.stale && answer.read)).toBe(true);

    // Moved under the same name: the index's repository of that name was recorded at the old path.
    const moved = moveAway(repo.root);
    expect(await answers(join(moved, '.ocvector'))).toEqual(before);

    const { summary, moves } = await index(moved);
    expect(moves).toEqual([{ from: repo.root, to: moved }]);
    expect(summary.files.unchanged).toBe(files);
    expect(summary.elements.added).toBe(0);
    expect(await roots(join(moved, '.ocvector'))).toEqual([moved]);
    // Written: the next run finds nothing moved.
    expect((await index(moved)).moves).toEqual([]);
  });

  it('follows a copy, whose files are newer, and leaves the original where it was', async () => {
    const repo = fixture();
    await index(repo.root);
    const parent = mkdtempSync(join(tmpdir(), 'ocvector-copy-'));
    cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
    const copy = join(parent, 'copy');
    cpSync(repo.root, copy, { recursive: true });
    repo.write('src/added.ts', 'export function onlyInTheOriginal(): number {\n  return 1;\n}\n');

    const { summary, moves } = await index(copy);
    expect(moves).toEqual([{ from: repo.root, to: copy }]);
    // Their new modification times had them read and hashed again, and nothing else.
    expect(summary.files.unchanged).toBe(Object.keys(searchFixtureFiles()).length);
    expect(summary.files.added).toBe(0);
    expect(summary.calls.embedding).toBe(0);
    expect(await roots(join(copy, '.ocvector'))).toEqual([copy]);
    expect(await roots(join(repo.root, '.ocvector'))).toEqual([repo.root]);
    expect((await index(repo.root)).summary.files.added).toBe(1);
  });

  it('moves the roots inside the directory that held it, and serves none outside it', async () => {
    const home = fixture();
    const indexDir = join(home.root, '.ocvector');
    await index(home.root);
    const nested = join(home.root, 'packages', 'store');
    for (const [path, content] of Object.entries(storeSources())) home.write(join('packages', 'store', path), content);
    await indexBuiltin(nested, { root: nested, indexDir, repo: 'store' });
    // A root recorded outside (a crafted index): not served, here or after the move.
    const outside = tempRepo(storeSources());
    cleanups.push(() => outside.cleanup());
    const store = IndexStore.open(indexDir);
    prepared(store.database, "INSERT INTO roots (path, name, created_at) VALUES (?, 'elsewhere', 0)").run(outside.root);
    store.close();

    const moved = moveAway(home.root);
    const searcher = await Searcher.open({ indexDir: join(moved, '.ocvector') });
    try {
      expect(searcher.repositories().map((repository) => repository.name)).toEqual([basename(home.root), 'store']);
      for (const [query, repo] of [
        [QUERY, basename(home.root)],
        ['fileTermCounts', 'store'],
      ] as const) {
        const [first] = (await searcher.search(query, { k: 1, repos: [repo] })).results;
        expect(first).toMatchObject({ repo, stale: false });
        expect(first!.snippet).toBeDefined();
      }
    } finally {
      await searcher.close();
    }
    const { moves } = await index(moved);
    expect(moves).toEqual([{ from: home.root, to: moved }]);
    expect(await roots(join(moved, '.ocvector'))).toEqual([moved, join(moved, 'packages', 'store')]);
  });

  it("in a directory of its own (--db), is no repository's, and moves none with it", async () => {
    const holder = tempRepo();
    const other = tempRepo(storeSources());
    cleanups.push(() => other.cleanup());
    await index(other.root, { indexDir: join(holder.root, 'index'), repo: 'store' });
    const moved = moveAway(holder.root);
    const { summary, moves } = await index(other.root, { indexDir: join(moved, 'index'), repo: 'store' });
    expect(moves).toEqual([]);
    expect(summary.files.unchanged).toBe(Object.keys(storeSources()).length);
    expect(await roots(join(moved, 'index'))).toEqual([other.root]);
  });

  it('is found moved when it was written before it recorded where it was, from its first root', async () => {
    const repo = fixture();
    await index(repo.root);
    const indexDir = join(repo.root, '.ocvector');
    const store = IndexStore.open(indexDir);
    prepared(store.database, "DELETE FROM meta WHERE key = 'home'").run();
    store.close();

    const moved = moveAway(repo.root);
    const { summary, moves } = await index(moved);
    expect(moves).toEqual([{ from: repo.root, to: moved }]);
    expect(summary.elements.added).toBe(0);
  });
});
