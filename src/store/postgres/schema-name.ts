/**
 * The name of the schema the shared store lives in, apart from the migrations (schema.ts) so
 * that the CLIs check it, and the seam (../open.ts) re-exports it, without loading or typing
 * the PostgreSQL client.
 */

/** What a schema is called when the user names none. */
export const DEFAULT_POSTGRES_SCHEMA = 'ocvector';

/**
 * A schema name: a letter or `_`, then letters, digits and `_`, at most 63 bytes (PostgreSQL's
 * NAMEDATALEN - 1). PostgreSQL's own schemas are refused, so that no table is made among the
 * catalog's: `pg_` names (pg_catalog, pg_toast, pg_temp_N...) and information_schema, in any case.
 */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SYSTEM_SCHEMA = /^(?:pg_|information_schema$)/i;

/** Why `name` cannot be the store's schema, in one sentence; undefined when it can. */
export function badSchemaName(name: unknown): string | undefined {
  if (typeof name === 'string' && SCHEMA_NAME.test(name) && !SYSTEM_SCHEMA.test(name)) return undefined;
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : String(name);
  if (typeof name === 'string' && SYSTEM_SCHEMA.test(name))
    return `${shown} is one of PostgreSQL's own schemas: give the store a schema of its own (default ${DEFAULT_POSTGRES_SCHEMA})`;
  return (
    `${shown} is not a schema name for the PostgreSQL store: ` +
    "use a letter or '_' followed by letters, digits and '_' (at most 63), not starting with 'pg_'"
  );
}
