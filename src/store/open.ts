/**
 * The one place a store is opened (store.ts is the seam): the registry of store kinds
 * (locations.ts) finds the kind a choice names, the embedded index in a directory (the default)
 * or a shared PostgreSQL store named by its URL, and that kind opens it. What differs between
 * stores after that is a capability of the Store, so nothing outside src/store/ asks which kind
 * it has.
 */
import { claimingKind, storeKindOf } from './locations.js';
import type { OpenStoreOptions, StoreChoice } from './open-options.js';
import type { Store } from './store.js';

export type {
  OpenStoreOptions,
  PostgresChoice,
  StoreChoice,
  VectorIndexEvent,
  VectorIndexOptions,
} from './open-options.js';
// Asked before any store is opened: the CLIs check --schema (cli/store-choice.ts), a search looks for the
// index in the default place (search/find-index.ts), the evaluation checks its --store (eval/semble.ts).
export { isIndexDirectory } from './embedded/embedded-store.js';
export { isPostgresUrl } from './postgres/kind.js';
export { badSchemaName, DEFAULT_POSTGRES_SCHEMA } from './postgres/schema-name.js';

/** The store `choice` names (a StoreError BAD_OPTION for anything that is none): a handle, which opens nothing yet. */
export async function openStore(choice: StoreChoice, options: OpenStoreOptions = {}): Promise<Store> {
  return storeKindOf(choice).open(choice, options);
}

/** Refuses, now, a choice that names no store (StoreError BAD_OPTION), before anything is done with it. */
export function checkStoreChoice(choice: StoreChoice): void {
  storeKindOf(choice);
}

/** Whether `choice` names a store of some kind (the CLIs check --store with it). */
export function namesStore(choice: StoreChoice): boolean {
  return claimingKind(choice) !== undefined;
}
