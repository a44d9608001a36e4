/**
 * Array parameters as literals (src/store/postgres/array-literal.ts): PostgreSQL reads back
 * exactly the values given, whatever their characters, as node-postgres's own arrays would be.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integerArray, textArray } from '../../src/store/postgres/array-literal.js';
import { parseVector, vectorText } from '../../src/store/postgres/vector-space.js';
import { fromHalfBits } from '../../src/vector/half-precision.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

let postgres: Postgres;
let client: pg.Client;

beforeAll(async () => {
  postgres = await startPostgres({ maxConnections: 2, vector: false });
  client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
}, 60_000);

afterAll(async () => {
  await client?.end();
  await postgres?.stop();
});

describe('array literals', () => {
  it('read back as the same strings: quotes, backslashes, commas, braces, spaces, NULL as a word, empty, Unicode', async () => {
    const values = [
      'plain',
      'a"b',
      'c\\d',
      '\\"',
      'x,y',
      '{z}',
      ' padded ',
      'NULL',
      '',
      'ünï😀',
      '12c,40,77',
      'line\nbreak',
    ];
    const { rows } = await client.query<{ back: string[] }>('SELECT $1::text[] AS back', [textArray(values)]);
    expect(rows[0]!.back).toEqual(values);
    const { rows: unnested } = await client.query<{ v: string }>('SELECT v FROM unnest($1::text[]) AS v', [
      textArray(values),
    ]);
    expect(unnested.map((row) => row.v)).toEqual(values);
  });

  it('read back as the same integers, bigint ones and negatives included, and empty', async () => {
    const values = [0, 1, -7, 2 ** 31 - 1, 2 ** 53 - 1];
    const { rows } = await client.query<{ back: string[] }>('SELECT $1::bigint[]::text[] AS back', [
      integerArray(values),
    ]);
    expect(rows[0]!.back).toEqual(values.map(String));
    const { rows: empty } = await client.query<{ n: number }>('SELECT cardinality($1::integer[]) AS n', [
      integerArray([]),
    ]);
    expect(empty[0]!.n).toBe(0);
  });
});

describe('vector text', () => {
  it('writes every half-precision value, and others, as its shortest decimal, which reads back as the same float', () => {
    // Every finite binary16 value, twice, then values binary16 does not hold.
    const halves = Array.from({ length: 1 << 16 }, (_, bits) => fromHalfBits(bits)).filter(Number.isFinite);
    const others = [0.1, Math.PI, 1e-30, -123456.789, 1 / 3];
    for (const values of [halves, halves, others]) {
      const text = vectorText(values, values.length, 'a test vector');
      expect(text).toBe(`[${values.map(String).join(',')}]`);
      // -0 reads back as 0, as String(-0) writes it.
      expect(Array.from(parseVector(text))).toEqual(values.map((v) => Math.fround(v) + 0));
    }
  });
});
