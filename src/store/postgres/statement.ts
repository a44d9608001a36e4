/**
 * A statement made before it runs: a run builds a batch's statements (the CPU of a write) while
 * the server still runs the batch before (write-pipeline.ts), so building and running are apart.
 */
import type { Queryable } from './serial.js';

export interface Statement {
  text: string;
  values: unknown[];
  /** What the server's error becomes (a StoreError that names the problem); returns it as it was otherwise. */
  failure?: (error: unknown) => unknown;
}

/** Runs a statement on a client, its error turned into what the statement says. */
export async function runStatement(client: Queryable, statement: Statement): Promise<void> {
  try {
    await client.query(statement.text, statement.values);
  } catch (error) {
    throw statement.failure ? statement.failure(error) : error;
  }
}
