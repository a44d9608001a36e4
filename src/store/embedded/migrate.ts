/**
 * Brings an index database's schema up to this ocvector's (schema.ts's MIGRATIONS), and
 * makes the same schema in a database of its own for schema-check.ts to compare with.
 */
import type Database from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import { pragmaValue, prepared, setPragma } from './sqlite.js';

/** Migrates an older database to SCHEMA_VERSION in one transaction; refuses a newer one, and an older one when reading. */
export function migrate(db: Database.Database, readonly: boolean): void {
  const current = pragmaValue(db, 'user_version') as number;
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      `the index was written by a newer ocvector (schema ${current}, this one knows ${SCHEMA_VERSION}); upgrade ocvector or rebuild the index`,
      'NEWER_SCHEMA',
    );
  }
  if (current === SCHEMA_VERSION) return;
  if (readonly)
    throw new StoreError(
      `the index has schema ${current} and needs migrating to ${SCHEMA_VERSION}: run oc-vector-index once`,
      'OLDER_SCHEMA',
    );
  db.transaction(() => applyMigrations(db, current, SCHEMA_VERSION)).immediate();
}

/** Moves a database from schema `from` to `to`, inside the caller's transaction. */
export function applyMigrations(db: Database.Database, from: number, to: number): void {
  for (let version = from; version < to; version++) {
    const migration = MIGRATIONS[version]!;
    if (typeof migration === 'string') db.exec(migration);
    else migration(db);
  }
  setPragma(db, `user_version = ${to}`);
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL)');
  prepared(db, 'INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(to, Date.now());
}
