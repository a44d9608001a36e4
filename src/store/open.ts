/**
 * The one place a store is chosen (store.ts is the seam): the embedded index in a directory
 * (the default), or a shared PostgreSQL store named by its URL. The PostgreSQL side (and its
 * client, pg) is loaded only when asked for. A third store is one more branch here.
 */
import { EmbeddedStore } from './embedded/embedded-store.js';
import type { VectorIndexEvent, VectorIndexOptions } from './embedded/vector-file.js';
import { StoreError } from './errors.js';
import { withoutPassword } from './location.js';
import type { Store } from './store.js';

export { isIndexDirectory } from './embedded/embedded-store.js';
export { copyIndex } from './embedded/index-copy.js';
export type { VectorIndexEvent, VectorIndexOptions } from './embedded/vector-file.js';
export { badSchemaName, DEFAULT_POSTGRES_SCHEMA } from './postgres/schema-name.js';

/** A shared store: `postgres://user@host:port/db` (or `postgresql://`), and the schema it lives in (default `ocvector`). */
export interface PostgresChoice {
  url: string;
  schema?: string | undefined;
}

/** Where an index is: undefined for the embedded one, a postgres:// URL, or a URL with a schema. */
export type StoreChoice = string | PostgresChoice | undefined;

export interface OpenStoreOptions {
  /** The embedded index's directory: needed when the choice is the embedded store. */
  indexDir?: string | undefined;
  /** The embedded index's FAISS options, and its events. */
  vectorIndex?: VectorIndexOptions | undefined;
  onEvent?: ((event: VectorIndexEvent) => void) | undefined;
}

/** The PostgreSQL store's choice, when `choice` names one (a StoreError BAD_OPTION for anything that is neither). */
export function postgresChoice(choice: StoreChoice): PostgresChoice | undefined {
  if (choice === undefined) return undefined;
  const given = typeof choice === 'string' ? { url: choice } : choice;
  if (typeof given !== 'object' || given === null || typeof given.url !== 'string' || !isPostgresUrl(given.url))
    throw new StoreError(
      `a store is a PostgreSQL URL (postgres://user@host:5432/db), not ${describe(typeof choice === 'string' ? choice : (choice as PostgresChoice)?.url)}; leave it out for the embedded index`,
      'BAD_OPTION',
    );
  return given;
}

export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The store `choice` names (a StoreError BAD_OPTION for anything that is none): a handle, which opens nothing yet. */
export async function openStore(choice: StoreChoice, options: OpenStoreOptions = {}): Promise<Store> {
  const postgres = postgresChoice(choice);
  if (postgres) {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    return new PostgresStore(postgres);
  }
  if (!options.indexDir)
    throw new StoreError('no index to open: give the index directory (indexDir), or a store', 'BAD_OPTION');
  return new EmbeddedStore(options.indexDir, { vectorIndex: options.vectorIndex, onEvent: options.onEvent });
}

/** A location for a message: at most 80 characters, and never a password. */
function describe(text: unknown): string {
  if (typeof text !== 'string') return String(text);
  return JSON.stringify(withoutPassword(text).slice(0, 80));
}
