/**
 * Planner statistics after a large load. A run's rows are committed at once (run-writer.ts), and
 * autovacuum analyses a table only after its naptime has passed: until then the planner
 * estimates a repository's rows without statistics. The vectors' table is the one that
 * matters: CREATE INDEX records its row count, and a filter on repositories of unknown
 * selectivity then looks narrow enough that an exact scan seems cheaper than the HNSW index,
 * and searches take three times as long (docs/postgres.md, "The figures behind the constants").
 * So a run that wrote many elements analyses what it wrote, once committed.
 */
import type { Queryable } from './serial.js';
import { findVectorSpace, partitionTable } from './vector-space.js';

/** Elements a run writes from which it analyses the tables after its commit (about a second's work a table set, sampled). */
export const ANALYZE_AFTER_ELEMENTS = 2_000;

/**
 * The tables a run fills, by their growth per element, and the columns to analyse where not all:
 * those searches and writes filter and join on. The arrays and long texts (a posting's entries, a
 * word's lines, an element's indexed texts, a vector) are left out. No plan reads their
 * statistics, and they cost most of the work (docs/postgres.md, "The figures behind the
 * constants").
 */
const LOADED_TABLES: readonly { table: string; columns?: readonly string[] }[] = [
  { table: 'elements' },
  { table: 'files' },
  { table: 'occurrences', columns: ['repo_id', 'file_id', 'word'] },
  { table: 'lexical_rows', columns: ['repo_id', 'tab', 'element_id'] },
  { table: 'lexical_postings', columns: ['repo_id', 'tab', 'term', 'file_id'] },
  { table: 'lexical_term_stats' },
];

/** The vectors' columns to analyse: the embedding's statistics serve no plan. */
const VECTOR_COLUMNS = ['repo_id', 'element_id', 'document_hash'];

/** A table and its columns, as ANALYZE names them. */
function analysed(table: string, columns: readonly string[] | undefined): string {
  return columns ? `${table} (${columns.join(', ')})` : table;
}

/** How long the ANALYZE waits for a lock (a VACUUM, a migration): past it, autovacuum does the work later. */
const ANALYZE_LOCK_TIMEOUT = '2s';

/**
 * ANALYZE of the tables a run loads and of the repository's vectors of its embedder (their
 * partition alone: the other repositories' did not change), in a transaction of its own
 * once the run has committed, when it wrote (`added`) ANALYZE_AFTER_ELEMENTS elements or more.
 * Best effort: a failure leaves only the statistics autovacuum will bring (a role that does not
 * own the tables is told so in a warning, not an error). Returns the error when it says the
 * connection broke (the caller then releases the client as broken).
 */
export async function analyzeAfterLoad(
  client: Queryable,
  s: string,
  schema: string,
  vectors: { embedder: string | undefined; repoId: number },
  added: number = ANALYZE_AFTER_ELEMENTS,
): Promise<Error | undefined> {
  if (added < ANALYZE_AFTER_ELEMENTS) return undefined;
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${ANALYZE_LOCK_TIMEOUT}'`);
    const { embedder, repoId } = vectors;
    const space = embedder === undefined ? undefined : await findVectorSpace(client, schema, embedder);
    const tables = [
      ...LOADED_TABLES.map(({ table, columns }) => analysed(`${s}.${table}`, columns)),
      ...(space ? [analysed(partitionTable(schema, space, repoId), VECTOR_COLUMNS)] : []),
    ];
    await client.query(`ANALYZE ${tables.join(', ')}`);
    await client.query('COMMIT');
    return undefined;
  } catch (error) {
    // The statistics are an optimisation: autovacuum brings them too.
    await client.query('ROLLBACK').catch(() => {});
    return isServerError(error) ? undefined : (error as Error);
  }
}

/** An error the server reported (it has a SQLSTATE), as against a connection that broke. */
function isServerError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
