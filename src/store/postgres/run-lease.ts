/**
 * A repository's lock in the PostgreSQL store: a row of `run_leases` (schema.ts, version 3),
 * claimed in a statement of its own before a run (or a drop) does anything else, renewed while
 * it lasts on a connection of its own, and given up at its end.
 *
 * Why a row and not an advisory lock held by the run's transaction: a server that serves every
 * connection from one backend (PGlite) shares advisory locks between connections and makes every
 * other connection wait while one is inside a transaction, so a second indexer waited for the
 * first's whole run and its connection timed out instead of hearing LOCKED. A row read in a
 * statement of its own is seen by every connection of every server, and no transaction stays open.
 *
 * A holder that dies without giving it up (killed, its machine gone) frees it by either rule:
 * - its connection is gone: the server lists no backend with the pid it recorded (at once on a
 *   PostgreSQL server; PGlite has one backend for every connection, so there only the next rule);
 * - it was not renewed for LEASE_EXPIRY_MS (a pooler in front of the server, PGlite).
 * A run that lost its lease while it was stalled finds out at its commit (endIn), which then fails.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { StoreError } from '../errors.js';
import type { PostgresConnection } from './connection.js';
import type { Queryable } from './serial.js';
import { transactionOn } from './transaction.js';

/** A lease not renewed for this long is free (a holder renews it every LEASE_RENEW_MS). */
export const LEASE_EXPIRY_MS = 15_000;
const LEASE_RENEW_MS = 3_000;
/** How often a run that waits (--wait) asks again. */
const WAIT_POLL_MS = 250;

export interface LeaseOptions {
  repo: string;
  /** How long to wait for another holder (0: fail at once). */
  waitMs: number;
}

export class WriterLease {
  readonly #connection: PostgresConnection;
  readonly #client: pg.PoolClient;
  readonly #repo: string;
  readonly #owner: string;
  /** The server's pid of the lease's connection (the same as every other connection's on PGlite). */
  readonly holderPid: number;
  #timer: NodeJS.Timeout | undefined;
  /** The renewal in flight (renewals never overlap). */
  #renewing: Promise<void> = Promise.resolve();
  #ended = false;

  private constructor(
    connection: PostgresConnection,
    client: pg.PoolClient,
    repo: string,
    owner: string,
    holderPid: number,
  ) {
    this.#connection = connection;
    this.holderPid = holderPid;
    this.#client = client;
    this.#repo = repo;
    this.#owner = owner;
    this.#timer = setInterval(() => this.#renew(), LEASE_RENEW_MS);
    // A lease never keeps a process alive by itself.
    this.#timer.unref();
  }

  /** Takes the repository's lease, at once or waiting up to `waitMs`; StoreError LOCKED when another holds it. */
  static async take(connection: PostgresConnection, options: LeaseOptions): Promise<WriterLease> {
    let client: pg.PoolClient;
    try {
      client = await connection.pool.connect();
    } catch (error) {
      throw connection.failure(error);
    }
    const owner = randomUUID();
    const deadline = Date.now() + Math.max(0, options.waitMs);
    try {
      for (;;) {
        const holder = await inOwnTransaction(client, () => claim(client, connection.s, options.repo, owner));
        if (typeof holder === 'number') return new WriterLease(connection, client, options.repo, owner, holder);
        if (holder === null) continue;
        if (Date.now() >= deadline) throw locked(connection, options.repo, holder);
        await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, deadline - Date.now())));
      }
    } catch (error) {
      client.release(error instanceof StoreError ? undefined : (error as Error));
      throw connection.failure(error);
    }
  }

  /**
   * Ends the lease inside the transaction that commits the run (on its client), so that the
   * lease and the run's rows end together; StoreError LOCKED when the lease was lost (the run
   * stalled past LEASE_EXPIRY_MS and another took it), and the caller rolls back.
   */
  async endIn(client: Queryable): Promise<void> {
    const { rowCount } = await client.query(
      `DELETE FROM ${this.#connection.s}.run_leases WHERE repo = $1 AND owner = $2`,
      [this.#repo, this.#owner],
    );
    if (rowCount === 0)
      throw new StoreError(
        `the run over ${this.#repo} in ${this.#connection.location} stalled for more than ${LEASE_EXPIRY_MS / 1_000} s and another run took the repository: nothing of this run was kept`,
        'LOCKED',
      );
  }

  /** Gives the lease up (nothing when the commit ended it already) and the lease's connection back. Idempotent. */
  async release(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#timer);
    await this.#renewing;
    let broken: Error | undefined;
    try {
      await inOwnTransaction(this.#client, () =>
        this.#client.query(`DELETE FROM ${this.#connection.s}.run_leases WHERE repo = $1 AND owner = $2`, [
          this.#repo,
          this.#owner,
        ]),
      );
    } catch (error) {
      // The server will free it by the holder's pid, or by its expiry.
      broken = error as Error;
    } finally {
      this.#client.release(broken);
    }
  }

  #renew(): void {
    this.#renewing = this.#renewing.then(async () => {
      if (this.#ended) return;
      await inOwnTransaction(
        this.#client,
        () =>
          this.#client.query(
            `UPDATE ${this.#connection.s}.run_leases SET renewed_at = clock_timestamp() WHERE repo = $1 AND owner = $2`,
            [this.#repo, this.#owner],
          ),
        // A renewal that fails (the server restarting) is tried again at the next tick; a lease lost meanwhile is found at the commit.
      ).catch(() => {});
    });
  }
}

/**
 * A statement with parameters, in a transaction of its own. PGlite's socket server passes the
 * messages of connections that are outside a transaction to its one backend interleaved, so two
 * such statements at once can bind each other's parameters; a transaction (begun by a message
 * without parameters, which is one message) keeps the others out until it ends. On a PostgreSQL
 * server it costs two round trips.
 */
export function inOwnTransaction<T>(client: Queryable, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  return transactionOn(client, begin, work);
}

/** Who holds a lease, as a message names them. */
interface Holder {
  holder: string;
  renewedAt: Date;
}

/**
 * Claims the lease in one statement: a new row, or the row of a holder that is gone (its pid
 * no longer a backend of the server) or silent past the expiry. Returns the connection's pid
 * when claimed, the holder when another has it, null when it was given up meanwhile (ask again).
 */
async function claim(client: pg.PoolClient, s: string, repo: string, owner: string): Promise<number | Holder | null> {
  const { rows: claimed } = await client.query<{ pid: number }>(
    `INSERT INTO ${s}.run_leases AS l (repo, owner, holder, holder_pid, renewed_at)
     VALUES ($1, $2, $3, pg_backend_pid(), clock_timestamp())
     ON CONFLICT (repo) DO UPDATE SET owner = excluded.owner, holder = excluded.holder,
       holder_pid = excluded.holder_pid, renewed_at = excluded.renewed_at
     WHERE l.renewed_at < clock_timestamp() - make_interval(secs => $4)
        OR (l.holder_pid <> pg_backend_pid() AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.holder_pid))
     RETURNING holder_pid AS pid`,
    [repo, owner, `${hostname()} pid ${process.pid}`, LEASE_EXPIRY_MS / 1_000],
  );
  if (claimed[0]) return claimed[0].pid;
  const { rows } = await client.query<{ holder: string; renewed_at: Date }>(
    `SELECT holder, renewed_at FROM ${s}.run_leases WHERE repo = $1`,
    [repo],
  );
  return rows[0] ? { holder: rows[0].holder, renewedAt: rows[0].renewed_at } : null;
}

function locked(connection: PostgresConnection, repo: string, holder: Holder): StoreError {
  return new StoreError(
    `the repository ${repo} is being indexed by another run (${holder.holder}, last seen ${holder.renewedAt.toISOString()}) in ${connection.location}: ` +
      `wait for it to finish, or pass --wait <seconds> (a run killed without finishing frees it within ${LEASE_EXPIRY_MS / 1_000} s)`,
    'LOCKED',
  );
}
