/**
 * copyIndex (store/embedded/index-copy.ts): a whole copy of an embedded index or none, the
 * source left as its writer left it.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Searcher } from '../../src/internal.js';
import { unchangedSinceLastWriter } from '../../src/store/embedded/database.js';
import { copyIndex } from '../../src/store/embedded/index-copy.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { openSqlite, prepared, setPragma } from '../../src/store/embedded/sqlite.js';
import { type UsableFile, usableFile } from '../../src/store/embedded/vector-files.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { tempRepo } from '../helpers/repo.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The fixture indexed, and an empty directory to copy its index into. */
async function indexed() {
  const repo = tempRepo(searchFixtureFiles());
  const scratch = mkdtempSync(join(tmpdir(), 'ocvector-copy-'));
  cleanups.push(() => {
    repo.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });
  await indexBuiltin(repo.root);
  return { source: join(repo.root, '.ocvector'), target: join(scratch, 'index'), scratch };
}

function vectorsFileOf(indexDir: string): UsableFile {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    return usableFile(store)!;
  } finally {
    store.close();
  }
}

async function answers(indexDir: string) {
  const searcher = await Searcher.open({ indexDir });
  try {
    return (await searcher.search('hash a password', { k: 5 })).results.map((r) => [r.path, r.name, r.score]);
  } finally {
    await searcher.close();
  }
}

describe('copyIndex', () => {
  it('copies the database and its vectors file, which answer as the source does, and leaves the source untouched', async () => {
    const { source, target } = await indexed();
    const sourceFiles = readdirSync(source).sort();
    expect(unchangedSinceLastWriter(source)).toBe(true);

    expect(await copyIndex(source, target)).toEqual({ copied: true });
    expect(readdirSync(source).sort()).toEqual(sourceFiles);
    expect(unchangedSinceLastWriter(source)).toBe(true);
    // Copied from a database as its writer left it: the copy's writer need not check every page.
    expect(unchangedSinceLastWriter(target)).toBe(true);
    expect(readdirSync(target).sort()).toEqual(sourceFiles);
    expect(await answers(target)).toEqual(await answers(source));
  });

  it('records the copy of a vectors file this machine wrote as written here, and leaves any other to be checked', async () => {
    const { source, target, scratch } = await indexed();
    expect(await copyIndex(source, target)).toEqual({ copied: true });
    // Copied from a file the source wrote here: read in this process, as the source's is, with no check in a child.
    expect(vectorsFileOf(target).asWritten).toBe(true);

    // A source whose record its file does not match (copied from elsewhere, or an older version's record) gives
    // a copy that is checked when first read, as the source would be.
    const store = IndexStore.open(source);
    try {
      const [name, identity] = store.meta.vectorsFile.split(' ');
      prepared(store.database, "UPDATE meta SET value = ? WHERE key = 'vectors_file'").run(`${name} ${identity} 1:2:3`);
    } finally {
      store.close();
    }
    const second = join(scratch, 'second');
    expect(await copyIndex(source, second)).toEqual({ copied: true });
    expect(vectorsFileOf(second).asWritten).toBe(false);
    expect(await answers(second)).toEqual(await answers(target));
  });

  it('leaves a copy of a database a writer has open to be checked by its own first writer', async () => {
    const { source, target } = await indexed();
    const writer = openSqlite(join(source, 'index.db'));
    setPragma(writer, 'journal_mode = WAL');
    writer.exec("UPDATE meta SET value = value WHERE key = 'generation'");
    try {
      expect(existsSync(join(source, 'index.db-wal'))).toBe(true);
      expect(await copyIndex(source, target)).toEqual({ copied: true });
      expect(unchangedSinceLastWriter(target)).toBe(false);
    } finally {
      writer.close();
    }
    expect(await answers(target)).toEqual(await answers(source));
  });

  it('copies nothing over an existing directory, from a newer schema, or where there is no index', async () => {
    const { source, target, scratch } = await indexed();
    writeFileSync(join(scratch, 'placeholder'), '');
    const taken = await copyIndex(source, scratch);
    expect(taken.copied).toBe(false);
    expect(readdirSync(scratch)).toEqual(['placeholder']);

    const newer = openSqlite(join(source, 'index.db'));
    setPragma(newer, 'user_version = 999');
    newer.close();
    expect(await copyIndex(source, target)).toEqual({
      copied: false,
      why: 'it was written by a newer ocvector (schema 999)',
    });
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(scratch)).toEqual(['placeholder']);

    const none = await copyIndex(join(scratch, 'nothing'), target);
    expect(none).toEqual({ copied: false, why: `${join(scratch, 'nothing')} holds no index` });
  });
});
