/**
 * Planner statistics after a large load. A run's rows are committed at once (run-writer.ts), and
 * autovacuum analyses a table only after its naptime has passed: until then the planner
 * estimates a repository's rows without statistics. The vectors' table is the one that
 * matters: CREATE INDEX records its row count, and a filter on repositories of unknown
 * selectivity then looks narrow enough that an exact scan seems cheaper than the HNSW index
 * (a search of two 21,007-element repositories took 131 ms where the index answers in 42:
 * docs/postgres.md). So a run that wrote many elements analyses what it wrote, once committed.
 */
import type { Queryable } from './serial.js';
import { findVectorSpace, spaceTables } from './vector-space.js';

/** Elements a run writes from which it analyses the tables after its commit (about a second's work a table set, sampled). */
export const ANALYZE_AFTER_ELEMENTS = 2_000;

/** The tables a run fills, by their growth per element. */
const LOADED_TABLES = ['elements', 'files', 'occurrences', 'lexical_rows', 'lexical_terms', 'lexical_term_stats'];

/**
 * ANALYZE of the tables a run loads and of its embedder's vectors, outside any transaction. Best
 * effort: the run has committed, and a failure here leaves only the statistics autovacuum will
 * bring (a role that does not own the tables is told so in a warning, not an error).
 */
export async function analyzeAfterLoad(
  client: Queryable,
  s: string,
  schema: string,
  embedder: string | undefined,
): Promise<void> {
  try {
    const space = embedder === undefined ? undefined : await findVectorSpace(client, schema, embedder);
    const tables = [
      ...LOADED_TABLES.map((table) => `${s}.${table}`),
      ...(space ? [spaceTables(schema, space).vectors] : []),
    ];
    await client.query(`ANALYZE ${tables.join(', ')}`);
  } catch {
    // The statistics are an optimisation: autovacuum brings them too.
  }
}
