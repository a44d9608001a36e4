/**
 * Schema 6 (SQLite) and 4 (PostgreSQL): the secret patterns grew, so an
 * index written before may hold, in its words and (PostgreSQL) its stored
 * content, a credential that older patterns missed. Bringing the index up
 * to date makes the next run read every file again and redact it with
 * today's patterns; unchanged elements keep their vectors.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/internal.js';
import { prepared, setPragma } from '../../src/store/embedded/sqlite.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { readIndex } from '../helpers/index-state.js';
import { undoExactLexicalStatistics } from '../helpers/schema-downgrade.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/schema.js';

// Written as an older ocvector let it through: a name ending in "pass" was not a secret's name.
const LEAK = 'Zq7unicornLeakValue';
const FILES = {
  'src/config.ts': `export const dbPass = "${LEAK}";\nexport function connect() {\n  return dbPass;\n}\n`,
  'src/users.ts': 'export class UserRepository {\n  find(id: string) {\n    return id;\n  }\n}\n',
};

let repo: TempRepo;
afterEach(() => repo.cleanup());

describe('the redaction migration (SQLite schema 5 -> 6)', () => {
  it('re-reads every file, so words an older ocvector recorded from an unredacted secret are gone', async () => {
    repo = tempRepo(FILES);
    repo.age();
    const indexDir = join(repo.root, '.ocvector');
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const before = await readIndex(indexDir);

    // The index as an older ocvector wrote it: the secret's word recorded, schema 5.
    const old = IndexStore.open(indexDir);
    const db = old.database;
    const fileId = prepared<[string], number>(db, 'SELECT id FROM files WHERE path = ?').pluck().get('src/config.ts')!;
    prepared(db, "INSERT INTO occurrences (word, file_id, lines) VALUES (?, ?, '1')").run(LEAK, fileId);
    undoExactLexicalStatistics(db);
    setPragma(db, 'user_version = 5');
    old.close();

    const summary = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    expect(summary.files.changed).toBe(Object.keys(FILES).length);
    expect(summary.elements.added).toBe(0);

    const after = IndexStore.open(indexDir);
    try {
      const words = prepared<[], string>(after.database, 'SELECT word FROM occurrences').pluck().all();
      expect(words.length).toBeGreaterThan(0);
      expect(words).not.toContain(LEAK);
    } finally {
      after.close();
    }
    expect((await readIndex(indexDir)).elements).toEqual(before.elements);
  });
});

describe('the redaction migration (PostgreSQL schema 3 -> 4)', () => {
  let postgres: Postgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(async () => postgres?.stop());

  it("makes each repository's next run read every file again", async () => {
    repo = tempRepo(FILES);
    repo.age();
    const options = { path: repo.root, embedder: 'builtin', llm: false, store: { url: postgres.url } } as const;
    await new Indexer(options).run();

    // Migration 4 applied to that store, as to one an older ocvector left at schema 3.
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      await client.query(POSTGRES_MIGRATIONS[3]!('"ocvector"'));
    } finally {
      await client.end();
    }

    const summary = await new Indexer(options).run();
    expect(summary.files.changed).toBe(Object.keys(FILES).length);
    expect(summary.elements.added).toBe(0);
    const again = await new Indexer(options).run();
    expect(again.files.changed).toBe(0);
  });
});
