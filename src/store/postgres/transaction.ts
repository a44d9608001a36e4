/** A transaction on a client: begun, committed, or rolled back when the work throws. */
import type pg from 'pg';
import type { Queryable } from './serial.js';

/** Runs work between `begin` and COMMIT on the client, rolling back when it throws. */
export async function transactionOn<T>(client: Queryable, begin: string, work: () => Promise<T>): Promise<T> {
  await client.query(begin);
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** One transaction on a client of the pool, the client always released. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    return await transactionOn(client, begin, () => work(client));
  } finally {
    client.release();
  }
}
