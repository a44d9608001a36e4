/**
 * Opens the store a search reads: the embedded index in a directory (the
 * default), or a shared PostgreSQL store named by its URL. The PostgreSQL
 * side is loaded only when asked for.
 */
import { EmbeddedSearchStore } from './embedded/search-store.js';
import { StoreError } from './errors.js';
import { withoutPassword } from './location.js';
import type { SearchStore } from './reads.js';
import type { VectorIndexEvent, VectorIndexOptions } from './embedded/vector-file.js';

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

export async function openStore(choice: StoreChoice, options: OpenStoreOptions): Promise<SearchStore> {
  const postgres = postgresChoice(choice);
  if (postgres) {
    const { PostgresSearchStore } = await import('./postgres/search-store.js');
    return PostgresSearchStore.open(postgres);
  }
  if (!options.indexDir)
    throw new StoreError('no index to open: give the index directory (indexDir), or a store', 'BAD_OPTION');
  return EmbeddedSearchStore.open(options.indexDir, { vectorIndex: options.vectorIndex, onEvent: options.onEvent });
}

/** A location for a message: at most 80 characters, and never a password. */
function describe(text: unknown): string {
  if (typeof text !== 'string') return String(text);
  return JSON.stringify(withoutPassword(text).slice(0, 80));
}
