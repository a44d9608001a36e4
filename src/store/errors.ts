/**
 * The store's error class, in a module of its own: the PostgreSQL store
 * throws it too, without loading SQLite (database.ts does).
 */
import { OcvectorError } from '../errors.js';

export type StoreErrorCode =
  | 'CORRUPT'
  | 'NEWER_SCHEMA'
  | 'OLDER_SCHEMA'
  | 'NOT_FOUND'
  | 'EMBEDDER_MISMATCH'
  | 'LOCKED'
  | 'IO'
  | 'MOVED'
  | 'BAD_NAME'
  | 'NAME_TAKEN'
  | 'UNKNOWN_REPO';

export class StoreError extends OcvectorError<StoreErrorCode> {
  override name = 'StoreError';
}
