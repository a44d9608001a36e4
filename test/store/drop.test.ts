import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/index.js';
import { dropIndex, WriteLock } from '../../src/internal.js';
import { type TempRepo, tempRepo } from '../helpers/repo.js';

const made: TempRepo[] = [];
const repos = {
  add(repo: TempRepo): TempRepo {
    made.push(repo);
    return repo;
  },
};
afterEach(() => {
  for (const repo of made.splice(0)) repo.cleanup();
});

async function indexedRepo() {
  const repo = repos.add(tempRepo({ 'src/a.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n' }));
  const summary = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
  return { repo, indexDir: summary.indexDir };
}

describe('dropIndex', () => {
  it("deletes the index's own files and its directory", async () => {
    const { repo, indexDir } = await indexedRepo();
    const dropped = await dropIndex(indexDir);
    expect(dropped.removed).toEqual(expect.arrayContaining(['index.db', '.gitignore']));
    expect(dropped.removed.some((name) => /^vectors-g\d+\.ocvx$/.test(name))).toBe(true);
    expect(dropped).toMatchObject({ kept: [], directoryRemoved: true });
    expect(existsSync(indexDir)).toBe(false);
    expect(readdirSync(repo.root)).toContain('src');
  });

  it('leaves anything else in the directory, and the directory with it', async () => {
    const { indexDir } = await indexedRepo();
    writeFileSync(join(indexDir, 'notes.txt'), 'mine');
    const dropped = await dropIndex(indexDir);
    expect(dropped).toMatchObject({ kept: ['notes.txt'], directoryRemoved: false });
    expect(readdirSync(indexDir)).toEqual(['notes.txt']);
  });

  it('refuses a directory that holds no index, and waits for no running indexer', async () => {
    const repo = repos.add(tempRepo({ 'keep.txt': 'x' }));
    await expect(dropIndex(repo.root)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('holds no index'),
    });
    expect(readdirSync(repo.root)).toEqual(['keep.txt']);
    const missing = join(repo.root, 'nothing-here');
    await expect(dropIndex(missing)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const { indexDir } = await indexedRepo();
    const lock = await WriteLock.acquire(indexDir);
    try {
      await expect(dropIndex(indexDir)).rejects.toMatchObject({ code: 'LOCKED' });
      expect(existsSync(join(indexDir, 'index.db'))).toBe(true);
    } finally {
      lock.release();
    }
    mkdirSync(join(indexDir, 'sub'));
    expect((await dropIndex(indexDir)).kept).toEqual(['sub']);
  });
});
