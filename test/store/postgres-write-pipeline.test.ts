/**
 * A PostgreSQL run's batches written while the next is built (write-pipeline.ts), and the
 * lookups of stored vectors merged while one is under way (merged-lookups.ts): the order the
 * steps run in, what a failed one does to those after it and to the run's commit, and which
 * lookups go together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresConnection } from '../../src/store/postgres/connection.js';
import { MergedLookups } from '../../src/store/postgres/merged-lookups.js';
import { PostgresWriter } from '../../src/store/postgres/run-writer.js';
import { turn, WritePipeline } from '../../src/store/postgres/write-pipeline.js';
import type { FileWrite } from '../../src/store/writes.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Two steps: the first records `first` once the gate opens, the second records `second`. */
function gatedSteps(ran: string[], first: string, second: string) {
  const gate = deferred();
  const steps = [
    async () => {
      await gate.promise;
      ran.push(first);
    },
    async () => void ran.push(second),
  ];
  return { steps, open: () => gate.resolve() };
}

describe('the write pipeline', () => {
  it('runs the batches queued in order, one step at a time, while the caller goes on', async () => {
    const pipeline = new WritePipeline();
    const ran: string[] = [];
    const first = gatedSteps(ran, 'a1', 'a2');
    pipeline.queue(first.steps);
    pipeline.queue([async () => void ran.push('b1')]);
    await turn();
    expect(ran).toEqual([]);
    first.open();
    await pipeline.settled();
    expect(ran).toEqual(['a1', 'a2', 'b1']);
  });

  it('keeps the first error, runs nothing after it, and throws it at every check', async () => {
    const pipeline = new WritePipeline();
    const ran: string[] = [];
    pipeline.queue([
      async () => {
        throw new Error('constraint broken');
      },
      async () => void ran.push('after, same batch'),
    ]);
    pipeline.queue([
      async () => {
        throw new Error('transaction is aborted');
      },
    ]);
    pipeline.queue([async () => void ran.push('next batch')]);
    await expect(pipeline.settled()).rejects.toThrow('constraint broken');
    expect(ran).toEqual([]);
    expect(pipeline.failed).toBe(true);
    expect(() => pipeline.check()).toThrow('constraint broken');
  });

  it('finds the vectors of a batch until its steps have run', async () => {
    const pipeline = new WritePipeline();
    const gate = deferred();
    const vector = Float32Array.of(1, 0);
    pipeline.queue([() => gate.promise], new Map([['h1', vector]]));
    expect(pipeline.vector('h1')).toBe(vector);
    expect(pipeline.vector('h2')).toBeUndefined();
    gate.resolve();
    await pipeline.settled();
    expect(pipeline.vector('h1')).toBeUndefined();
  });

  it('starts no step after stop(), and waits for the one running', async () => {
    const pipeline = new WritePipeline();
    const ran: string[] = [];
    const batch = gatedSteps(ran, 'running', 'not started');
    pipeline.queue(batch.steps);
    await turn();
    const stopped = pipeline.stop();
    batch.open();
    await stopped;
    expect(ran).toEqual(['running']);
  });
});

describe('merged lookups', () => {
  it('sends the hashes asked while a lookup is under way together in the next one, each caller getting its own', async () => {
    const reads: string[][] = [];
    const answers: ReturnType<typeof deferred<Map<string, Float32Array>>>[] = [];
    const lookups = new MergedLookups((hashes) => {
      reads.push([...hashes]);
      const answer = deferred<Map<string, Float32Array>>();
      answers.push(answer);
      return answer.promise;
    });
    const v = (x: number) => Float32Array.of(x);
    const first = lookups.find(['a']);
    await turn();
    expect(reads).toEqual([['a']]);
    const second = lookups.find(['b', 'c']);
    const third = lookups.find(['c', 'd']);
    await turn();
    expect(reads).toHaveLength(1);
    answers[0]!.resolve(new Map([['a', v(1)]]));
    expect(await first).toEqual(new Map([['a', v(1)]]));
    await turn();
    expect(reads).toEqual([['a'], ['b', 'c', 'd']]);
    answers[1]!.resolve(
      new Map([
        ['b', v(2)],
        ['d', v(4)],
      ]),
    );
    expect(await second).toEqual(new Map([['b', v(2)]]));
    expect(await third).toEqual(new Map([['d', v(4)]]));
  });

  it('fails only the callers of a lookup that failed: the next one is sent as usual', async () => {
    let calls = 0;
    const lookups = new MergedLookups(async (hashes) => {
      if (calls++ === 0) throw new Error('connection lost');
      return new Map(hashes.map((hash) => [hash, Float32Array.of(1)]));
    });
    await expect(lookups.find(['a'])).rejects.toThrow('connection lost');
    expect([...(await lookups.find(['b'])).keys()]).toEqual(['b']);
  });
});

describe('a run whose queued batch fails at the server', () => {
  let postgres: Postgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  /** The rows a table holds, the connection closed after. */
  async function rowsThenClose(connection: PostgresConnection, table: string): Promise<number> {
    try {
      const { rows } = await connection.pool.query(`SELECT count(*)::integer AS n FROM ${table}`);
      return rows[0].n;
    } finally {
      await connection.close();
    }
  }

  const file = (path: string, status: string): FileWrite => ({
    kind: 'write',
    update: { path, language: 'typescript', size: 1, mtimeMs: 1, hash: `h-${path}`, status, error: null } as never,
    documents: [],
    vectors: new Map(),
  });

  it("fails its commit with that batch's error, not the aborted transaction's, and writes nothing", async () => {
    const connection = await PostgresConnection.open(postgres.url, {
      schema: 'failing',
      maxConnections: 3,
      migrate: true,
    });
    const run = await PostgresWriter.begin(connection, { repo: 'app', root: '/app', waitMs: 0 });
    try {
      await run.useEmbedder({ id: 'test:2', dimension: 2 }, undefined, false);
      // The status passes the client and breaks the table's check: only the server refuses it.
      await run.write([file('a.ts', 'no such status')]);
      // Built after the first is queued: its ids are asked on the connection the failure aborted.
      await run.write([file('b.ts', 'indexed')]);
      await expect(run.commit({ commit: undefined, at: 1, lastRun: {} })).rejects.toThrow(/files_status_check/);
    } finally {
      await run.rollback();
    }
    expect(await rowsThenClose(connection, 'failing.repositories')).toBe(0);
  });

  it('fails the next write with that error when the transaction is open from the first write, as on a PostgreSQL server', async () => {
    const connection = await PostgresConnection.open(postgres.url, {
      schema: 'open',
      maxConnections: 3,
      migrate: true,
    });
    // Nothing held: the transaction opens at the first write, and each write is queued as it comes.
    const run = await PostgresWriter.begin(connection, { repo: 'app', root: '/app', waitMs: 0, holdElements: 0 });
    try {
      await run.useEmbedder({ id: 'test:2', dimension: 2 }, undefined, false);
      await run.write([file('a.ts', 'indexed')]);
      await run.write([file('b.ts', 'no such status')]);
      await expect(run.write([file('c.ts', 'indexed')])).rejects.toThrow(/files_status_check/);
      await expect(run.commit({ commit: undefined, at: 1, lastRun: {} })).rejects.toThrow(/files_status_check/);
    } finally {
      await run.rollback();
    }
    expect(await rowsThenClose(connection, 'open.files')).toBe(0);
  });
});
