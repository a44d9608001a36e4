/**
 * Search filters (../reads.ts's FilterConditions) as PostgreSQL over the aliases `e` (elements)
 * and `f` (files), with numbered parameters from a given one: the search layer says what to
 * keep, the store says how its tables are asked for it. Values travel only as parameters.
 */
import type { FilterConditions } from '../reads.js';

export interface FilterSql {
  /** A condition over `e` and `f` (`true` when nothing is filtered). */
  sql: string;
  params: unknown[];
  active: boolean;
}

/** The conditions as SQL whose first parameter is `$<first>`. */
export function filterSql(conditions: FilterConditions, first: number): FilterSql {
  const sql: string[] = [];
  const params: unknown[] = [];
  const next = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  if (conditions.pathStartsWith !== undefined) sql.push(`starts_with(f.path, ${next(conditions.pathStartsWith)})`);
  if (conditions.under !== undefined)
    sql.push(`(f.path = ${next(conditions.under)} OR starts_with(f.path, ${next(`${conditions.under}/`)}))`);
  if (conditions.languages) sql.push(`f.language = ANY(${next([...conditions.languages])}::text[])`);
  if (conditions.types) sql.push(`e.element_type = ANY(${next([...conditions.types])}::text[])`);
  return { sql: sql.length > 0 ? sql.join(' AND ') : 'true', params, active: sql.length > 0 };
}
