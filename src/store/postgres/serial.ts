/**
 * One connection's queries, one after another. The parts of a search (BM25 over two tables,
 * the k-NN, the rows) ask at once, and a `pg` client refuses a query while another runs on it
 * (deprecated in pg 8, an error in pg 9): here each waits for the one before, on the one
 * connection that holds the search's snapshot.
 */
import type pg from 'pg';

export type Queryable = Pick<pg.ClientBase, 'query'>;

export interface SerialQueries extends Queryable {
  /** Resolves once every query asked so far has ended (a transaction ends after them, not before). */
  settled(): Promise<void>;
}

export function serialQueries(client: Queryable): SerialQueries {
  let last: Promise<unknown> = Promise.resolve();
  const query = (...args: unknown[]) => {
    const run = last.then(() => (client.query as (...a: unknown[]) => Promise<unknown>)(...args));
    last = run.catch(() => {});
    return run;
  };
  return { query: query as Queryable['query'], settled: () => last.then(() => {}) };
}
