/**
 * A writer checks every page of the database when it opens it (1.6 s at
 * 168,000 elements), unless the file is exactly as the last writer left it.
 */
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/index.js';
import { CHECKED_FILE, DATABASE_FILE, IndexStore, openDatabase, unchangedSinceLastWriter } from '../../src/internal.js';
import { SAMPLE_FILES, type TempRepo, tempRepo } from '../helpers/repo.js';

const made: TempRepo[] = [];
afterEach(() => {
  for (const repo of made.splice(0)) repo.cleanup();
});

describe('the structure check of a writer', () => {
  it('is skipped while the file is as its last writer left it, and runs when anything else touched it', async () => {
    const repo = tempRepo(SAMPLE_FILES);
    made.push(repo);
    const { indexDir } = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const path = join(indexDir, DATABASE_FILE);
    expect(readFileSync(join(indexDir, CHECKED_FILE), 'utf8')).toMatch(/^\d+:\d+:\d+:\d+$/);
    expect(unchangedSinceLastWriter(indexDir)).toBe(true);

    // A writer that opens it and closes it again leaves it trusted.
    IndexStore.open(indexDir).close();
    expect(unchangedSinceLastWriter(indexDir)).toBe(true);

    // A writer still open (or one that crashed) leaves its write-ahead log: the next writer checks.
    const open = IndexStore.open(indexDir);
    open.transaction(() => {
      open.meta.generation += 1;
    });
    expect(unchangedSinceLastWriter(indexDir)).toBe(false);
    open.close();
    expect(unchangedSinceLastWriter(indexDir)).toBe(true);

    // Anything else that writes the file, even the same bytes with the old modification time, makes it checked again.
    const { mtime } = statSync(path);
    writeFileSync(path, readFileSync(path));
    utimesSync(path, mtime, mtime);
    expect(unchangedSinceLastWriter(indexDir)).toBe(false);
    // Damage found by that check is reported, as before.
    const bytes = readFileSync(path);
    bytes.fill(0, 0, 100);
    writeFileSync(path, bytes);
    expect(() => openDatabase(indexDir)).toThrow(/is damaged|not a database/);
  });
});
