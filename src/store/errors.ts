/**
 * The store's error class, in a module of its own: the PostgreSQL store
 * throws it too, without loading SQLite (embedded/database.ts does).
 */
import { OcvectorError } from '../errors.js';

export type StoreErrorCode =
  | 'CORRUPT'
  /**
   * An index that holds what ocvector never writes there (a link in place of its directory or one of
   * its files, a trigger, a view, a table not of its schema): refused, never followed or run.
   */
  | 'UNTRUSTED'
  | 'NEWER_SCHEMA'
  | 'OLDER_SCHEMA'
  | 'NOT_FOUND'
  | 'EMBEDDER_MISMATCH'
  | 'LOCKED'
  | 'IO'
  | 'BAD_NAME'
  | 'NAME_TAKEN'
  | 'UNKNOWN_REPO'
  /** A run would index a directory outside the repository whose default place (.ocvector) holds the index. */
  | 'ROOT_OUTSIDE'
  /** A store option that cannot be used: a store location that is no postgres:// URL, a bad schema option. */
  | 'BAD_OPTION'
  /** The database server cannot be reached, refused the login, or went away during a read or a write. */
  | 'UNREACHABLE'
  /** The database server lacks what the store needs: PostgreSQL 15 or later, the pgvector extension. */
  | 'UNSUPPORTED'
  /** The store was closed, or a run over it has ended. */
  | 'CLOSED';

export class StoreError extends OcvectorError<StoreErrorCode> {
  override name = 'StoreError';
}
