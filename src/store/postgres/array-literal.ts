/**
 * Array parameters as PostgreSQL array literals, joined at once. node-postgres converts, tests
 * and appends each value of an array on its own (and escapes each string twice, by regular
 * expression): for a batch's hundreds of thousands of lexical terms and occurrences that was
 * a tenth of an indexing run's client time (docs/history/postgres.md).
 */

/**
 * Strings (or numbers, as text) as a literal: each quoted, `"` and `\` escaped. Also what a
 * value that is itself an array takes, in a column of arrays (unnest would flatten a
 * two-dimensional parameter).
 */
export function textArray(values: readonly (string | number)[]): string {
  return `{${values.map((v) => `"${String(v).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** Integers as a literal (`{1,2,3}`): nothing to quote. */
export function integerArray(values: readonly number[]): string {
  return `{${values.join(',')}}`;
}
