/**
 * The shared PostgreSQL store as a kind of store (../locations.ts): named by its URL, alone or
 * with a schema. Its side (and its client, pg) is loaded only when one is opened.
 */
import type { PostgresChoice, StoreChoice } from '../open-options.js';
import type { StoreKind } from '../store.js';

export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

export const postgresKind: StoreKind = {
  name: 'PostgreSQL store',
  namedBy: 'a PostgreSQL URL (postgres://user@host:5432/db)',
  claims(choice) {
    const url = urlOf(choice);
    return url !== undefined && isPostgresUrl(url);
  },
  async open(choice) {
    const { PostgresStore } = await import('./postgres-store.js');
    return new PostgresStore(typeof choice === 'string' ? { url: choice } : (choice as PostgresChoice));
  },
};

/** The URL of a choice given as a string or as `{ url, schema }`; undefined for anything else. */
function urlOf(choice: StoreChoice): string | undefined {
  const url: unknown = typeof choice === 'string' ? choice : (choice as PostgresChoice | null | undefined)?.url;
  return typeof url === 'string' ? url : undefined;
}
