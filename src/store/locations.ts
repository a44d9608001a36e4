/**
 * The registry of store kinds: one record per kind (store.ts's StoreKind: its name, whether a
 * choice names it, how to open one), asked in turn by open.ts. This is the one place that tells
 * the stores apart; a new kind of store is its folder, with its record, and one line here.
 */
import { embeddedKind } from './embedded/kind.js';
import { StoreError } from './errors.js';
import { withoutPassword } from './location.js';
import type { PostgresChoice, StoreChoice } from './open-options.js';
import { postgresKind } from './postgres/kind.js';
import type { StoreKind } from './store.js';

/** The kinds of store, in the order they are asked. */
const STORE_KINDS: StoreKind[] = [embeddedKind, postgresKind];

/** The kind of store `choice` names (StoreError BAD_OPTION, saying what names one, when no kind claims it). */
export function storeKindOf(choice: StoreChoice): StoreKind {
  const kind = claimingKind(choice);
  if (kind) return kind;
  throw new StoreError(refusal(choice), 'BAD_OPTION');
}

/** The kind of store `choice` names, if any. */
export function claimingKind(choice: StoreChoice): StoreKind | undefined {
  return STORE_KINDS.find((kind) => kind.claims(choice));
}

/**
 * Adds a kind of store from outside this folder (a test's toy store), asked after the others;
 * returns what removes it again. StoreError BAD_OPTION when a kind of that name is there already.
 */
export function registerStoreKind(kind: StoreKind): () => void {
  if (STORE_KINDS.some((known) => known.name === kind.name))
    throw new StoreError(`a kind of store named ${JSON.stringify(kind.name)} is registered already`, 'BAD_OPTION');
  STORE_KINDS.push(kind);
  return () => {
    const at = STORE_KINDS.indexOf(kind);
    if (at >= 0) STORE_KINDS.splice(at, 1);
  };
}

/** Why `choice` names no store, in one sentence: what does name one, and what it was given. */
function refusal(choice: StoreChoice): string {
  const named = STORE_KINDS.flatMap((kind) => (kind.namedBy === undefined ? [] : [kind.namedBy]));
  const unnamed = STORE_KINDS.find((kind) => kind.namedBy === undefined);
  const given = typeof choice === 'string' ? choice : (choice as PostgresChoice | null | undefined)?.url;
  return `a store is ${named.join(' or ')}, not ${describe(given)}${unnamed ? `; leave it out for the ${unnamed.name}` : ''}`;
}

/** A location for a message: at most 80 characters, and never a password. */
function describe(text: unknown): string {
  if (typeof text !== 'string') return String(text);
  return JSON.stringify(withoutPassword(text).slice(0, 80));
}
