/**
 * An FTS5 expression: the terms quoted (so no query text is ever read as
 * FTS syntax), joined by OR (ranked by BM25), or by AND when every term
 * must match. Undefined for no terms.
 */
export function ftsExpression(terms: readonly string[], all = false): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(all ? ' AND ' : ' OR ');
}
