/**
 * Schema 4 adds the occurrences table (references). An index written
 * before it has no words recorded: opening it to write migrates it, and
 * the next run reads every file again to record them, keeping every
 * element and its vector (nothing is embedded again).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Indexer, Searcher } from '../../src/internal.js';
import { setPragma } from '../../src/store/embedded/sqlite.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { readIndex } from '../helpers/index-state.js';
import { undoExactLexicalStatistics, undoRepositories } from '../helpers/schema-downgrade.js';
import { SAMPLE_FILES, tempRepo, type TempRepo } from '../helpers/repo.js';

let repo: TempRepo;
afterEach(() => repo.cleanup());

describe('the occurrences migration (schema 3 -> 4)', () => {
  it('re-reads every file once to record its words, keeping elements and vectors', async () => {
    repo = tempRepo(SAMPLE_FILES);
    const indexDir = join(repo.root, '.ocvector');
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const before = await readIndex(indexDir);

    // Back to schema 3: one pair of lexical tables, no occurrences table.
    const old = IndexStore.open(indexDir);
    undoExactLexicalStatistics(old.database);
    undoRepositories(old.database);
    old.database.exec(
      'DROP TABLE occurrences; DROP INDEX elements_by_file_line; CREATE INDEX elements_by_file ON elements(file_id);',
    );
    setPragma(old.database, 'user_version = 3');
    old.close();
    await expect(Searcher.open({ indexDir })).rejects.toThrow(
      /has schema 3 and needs migrating to \d+: run oc-vector-index once/,
    );

    const summary = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    expect(summary.files.changed).toBe(Object.keys(SAMPLE_FILES).length);
    expect(summary.elements.added).toBe(0);
    const after = await readIndex(indexDir);
    expect(after.elements).toEqual(before.elements);
    expect(after.consistency.ok).toBe(true);

    const searcher = await Searcher.open({ indexDir });
    try {
      const refs = await searcher.references('UserRepository');
      expect(refs.definitions.length).toBeGreaterThan(0);
      expect(refs.files.some((file) => file.defines)).toBe(true);
    } finally {
      searcher.close();
    }
  });
});
