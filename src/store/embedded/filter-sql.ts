/**
 * Search filters as SQL over the aliases `e` (elements) and `f` (files) of
 * the reads in search-reader.ts: the search layer says what to keep, the
 * store says how its tables are asked for it.
 */
import type { FilterConditions } from '../reads.js';

/**
 * A condition over `e` and `f`, and its parameters. Its text depends only on
 * which parts are present (lists travel as one JSON parameter), so the
 * statements built on it form a finite set (see sqlite.ts).
 */
export interface ConditionSql {
  sql: string;
  params: (string | number)[];
}

export function filterSql(conditions: FilterConditions): ConditionSql {
  const sql: string[] = [];
  const params: (string | number)[] = [];
  if (conditions.pathStartsWith !== undefined) {
    sql.push('substr(f.path, 1, ?) = ?');
    params.push(conditions.pathStartsWith.length, conditions.pathStartsWith);
  }
  if (conditions.under !== undefined) {
    const prefix = `${conditions.under}/`;
    sql.push('(f.path = ? OR substr(f.path, 1, ?) = ?)');
    params.push(conditions.under, prefix.length, prefix);
  }
  if (conditions.languages) {
    sql.push('f.language IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(conditions.languages));
  }
  if (conditions.types) {
    sql.push('e.element_type IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(conditions.types));
  }
  return { sql: sql.length > 0 ? sql.join(' AND ') : '1', params };
}
