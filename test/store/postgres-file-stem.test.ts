/**
 * A file named by an identifier query is found on the server by its stem (fileStemSql), which
 * must be the stem the embedded store compares (fileStem, then normalizeStem): the same files
 * named, whichever store answers.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStem, normalizeStem } from '../../src/files/rules.js';
import { fileStemSql } from '../../src/store/postgres/scope-reads.js';

const PATHS = [
  'src/a/query_manager.ts',
  'QueryManager.tsx',
  'dir.with.dots/file-name.test.ts',
  'a/$weird_Name$.d.ts',
  '.eslintrc.js',
  'config/.env.local',
  'q/..hidden',
  'a/b/trailing.',
  'bin/Makefile',
  'deep/x/y/Z',
  'src/Ünïcode_Datei.rs',
];

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db?.close();
});

describe('fileStemSql', () => {
  it('gives the stem fileStem and normalizeStem give, path by path', async () => {
    const { rows } = await db.query<{ path: string; stem: string }>(
      `SELECT path, ${fileStemSql('path')} AS stem FROM unnest($1::text[]) AS path`,
      [PATHS],
    );
    expect(rows.map((row) => [row.path, row.stem])).toEqual(PATHS.map((path) => [path, normalizeStem(fileStem(path))]));
  });
});
