/**
 * The SQL of the lexical reader (lexical-reader.ts): which elements match a query's terms, and
 * their BM25 scores, computed as SQLite's FTS5 computes bm25() (ext/fts5/fts5_aux.c,
 * fts5Bm25Function), operation for operation in doubles:
 *
 *   N      = the table's rows now (xRowCount: FTS5's totals, which a 'delete' takes a row out of)
 *   avgdl  = (their tokens, all columns) / N
 *   idf_i  = ln((N - nHit_i + 0.5) / (nHit_i + 0.5)), or 1e-6 where that is <= 0
 *            (nHit_i: the rows that phrase i matches now)
 *   f_i    = sum over columns of weight_c * tf_ic (FTS5 adds weight_c per occurrence)
 *   D      = the row's tokens, all columns
 *   score  = sum over phrases, in query order, of idf_i * ((f_i * 2.2) / (f_i + 1.2 * (0.25 + 0.75 * D / avgdl)))
 *
 * FTS5 returns -score (lower is better); these statements return score, best first, ties in
 * the order FTS5 leaves them: by element id (and by repository, in the order given, first).
 *
 * Parameters shared by every statement (the SQL text never holds a value, only the schema's
 * quoted name and the store's own constants):
 *   $1  integer[]   the repositories searched
 *   $2  text[]      one entry per query term (a slot): its token, or NULL when it is a phrase or empty
 *   $3  smallint[]  the tables read (0 names, 1 code)
 *   $4 .. $12       the phrases' matches, computed by the reader: slot, tab, repo_id, element_id,
 *                   tf_0 .. tf_3 (occurrences of the phrase per column), length
 *   $13             a statement's own: its limit
 */
import { COLUMN_WEIGHTS, TF_COLUMNS, type LexicalTable } from './lexical-terms.js';

/** The parameter after the shared ones: a statement's own (a limit). */
const OWN = '$13';
/** Where a filter's parameters start, after the statement's own (filter-sql.ts numbers them from here). */
export const FILTER_FIRST_PARAMETER = 14;

/** FTS5's bm25 constants (fts5_aux.c): k1, b, and the floor of a term's IDF. */
const K1 = '1.2';
const B = '0.75';
const IDF_FLOOR = '1e-6';

/** The query's slots and the phrases' matches. */
function base(): string {
  return `
    slot AS MATERIALIZED (
      SELECT u.term, u.i::integer AS i FROM unnest($2::text[]) WITH ORDINALITY AS u(term, i)
    ), phrase AS MATERIALIZED (
      SELECT * FROM unnest($4::integer[], $5::smallint[], $6::integer[], $7::bigint[], $8::integer[], $9::integer[],
        $10::integer[], $11::integer[], $12::integer[]) AS p(i, tab, repo_id, element_id, tf_0, tf_1, tf_2, tf_3, length)
    )`;
}

/** Every row (element, table) a slot matches, with the slot. */
function hits(s: string): string {
  return `
    hit AS (
      SELECT slot.i, t.tab, t.repo_id, u.element_id FROM slot JOIN ${s}.lexical_postings t
        ON t.repo_id = ANY($1::integer[]) AND t.tab = ANY($3::smallint[]) AND t.term = slot.term
        CROSS JOIN LATERAL unnest(t.element_ids) AS u(element_id)
      UNION ALL SELECT i, tab, repo_id, element_id FROM phrase
    )`;
}

/** Rows holding any slot (`all`: every slot), once each. */
function matched(all: boolean): string {
  return `
    matched AS (
      SELECT hit.tab, hit.repo_id, hit.element_id FROM hit GROUP BY hit.tab, hit.repo_id, hit.element_id
      ${all ? 'HAVING count(DISTINCT hit.i) = cardinality($2::text[])' : ''}
    )`;
}

/**
 * The best rows of one table, by BM25: (id, score), score descending. Own parameter: $13 the
 * limit. With `filter`, a condition over the aliases `e` (elements) and `f` (files) whose
 * parameters follow from $14 (filter-sql.ts): rows are scored, filtered, then limited, as
 * FTS5's MATCH with a filter ranks.
 */
export function scoreSql(s: string, table: LexicalTable, all: boolean, filter?: string): string {
  const weights = COLUMN_WEIGHTS[table];
  const f = Array.from({ length: TF_COLUMNS }, (_, c) => `${float(weights[c] ?? 0)} * hit.tf_${c}`).join(' + ');
  return `
    WITH ${base()}, total AS MATERIALIZED (
      SELECT t.repo_id, t.live_rows AS n,
        (SELECT sum(x) FROM unnest(t.live_tokens) AS x)::float8 / t.live_rows::float8 AS avgdl
      FROM ${s}.lexical_totals t
      WHERE t.repo_id = ANY($1::integer[]) AND t.tab = ANY($3::smallint[]) AND t.live_rows > 0
    ), doc AS (
      SELECT slot.i, slot.term, st.repo_id, st.docs::bigint AS n_hit
      FROM slot JOIN ${s}.lexical_term_stats st
        ON st.repo_id = ANY($1::integer[]) AND st.tab = ANY($3::smallint[]) AND st.term = slot.term
      UNION ALL SELECT i, NULL, repo_id, count(*) FROM phrase GROUP BY i, repo_id
    ), idf AS MATERIALIZED (
      SELECT doc.i, doc.term, doc.repo_id, total.avgdl, CASE WHEN v.idf > 0 THEN v.idf ELSE ${float(IDF_FLOOR)} END AS idf
      FROM doc JOIN total ON total.repo_id = doc.repo_id
      CROSS JOIN LATERAL (
        SELECT ln(((total.n - doc.n_hit)::float8 + ${float('0.5')}) / (doc.n_hit::float8 + ${float('0.5')})) AS idf
      ) v
    ), hit AS (
      -- One index range per (term, repository): idf's few rows drive the reads.
      -- Code rows leave tf_1 to tf_3 empty: unnest gives NULL there, which counts 0.
      SELECT idf.i, idf.idf, idf.avgdl, t.repo_id, u.element_id, u.tf_0, coalesce(u.tf_1, 0) AS tf_1,
        coalesce(u.tf_2, 0) AS tf_2, coalesce(u.tf_3, 0) AS tf_3, u.length
      FROM idf JOIN ${s}.lexical_postings t ON t.repo_id = idf.repo_id AND t.tab = ANY($3::smallint[]) AND t.term = idf.term
      CROSS JOIN LATERAL unnest(t.element_ids, t.tf_0, t.tf_1, t.tf_2, t.tf_3, t.lengths)
        AS u(element_id, tf_0, tf_1, tf_2, tf_3, length)
      UNION ALL
      SELECT idf.i, idf.idf, idf.avgdl, p.repo_id, p.element_id, p.tf_0, p.tf_1, p.tf_2, p.tf_3, p.length
      FROM phrase p JOIN idf ON idf.i = p.i AND idf.repo_id = p.repo_id
    ), scored AS (
      SELECT hit.repo_id, hit.element_id,
        sum(hit.idf * ((w.f * (${float(K1)} + ${float('1.0')})) /
          (w.f + ${float(K1)} * (${float('1')} - ${float(B)} + ${float(B)} * hit.length::float8 / hit.avgdl)))
          ORDER BY hit.i) AS score
      FROM hit CROSS JOIN LATERAL (SELECT (${f})::float8 AS f) w
      GROUP BY hit.repo_id, hit.element_id
      ${all ? 'HAVING count(DISTINCT hit.i) = cardinality($2::text[])' : ''}
    )
    SELECT sc.element_id AS id, sc.score FROM scored sc
    ${
      filter
        ? `JOIN ${s}.elements e ON e.repo_id = sc.repo_id AND e.id = sc.element_id
           JOIN ${s}.files f ON f.repo_id = e.repo_id AND f.id = e.file_id
           WHERE ${filter}`
        : ''
    }
    ORDER BY sc.score DESC, array_position($1::integer[], sc.repo_id), sc.element_id
    LIMIT ${OWN}`;
}

/** How many rows match, counting at most $13 (NULL: all). */
export function countSql(s: string, all: boolean): string {
  return `
    WITH ${base()}, ${hits(s)}, ${matched(all)}
    SELECT count(*)::integer AS n FROM (SELECT 1 FROM matched LIMIT ${OWN}) m`;
}

/** Elements matching in either table, counted by file: (file_id, n). */
export function fileCountSql(s: string, all: boolean): string {
  return `
    WITH ${base()}, ${hits(s)}, ${matched(all)}
    SELECT e.file_id, count(*)::integer AS n
    FROM (SELECT DISTINCT repo_id, element_id FROM matched) m
    JOIN ${s}.elements e ON e.repo_id = m.repo_id AND e.id = m.element_id
    GROUP BY e.file_id`;
}

/**
 * The rows holding every token of a phrase (a candidate; the reader checks the order in their
 * texts). $1 repositories, $2 tables, $3 the phrase's distinct tokens.
 */
export function phraseCandidatesSql(s: string): string {
  return `
    SELECT r.tab, r.repo_id, r.element_id, r.sizes, r.texts
    FROM (
      SELECT t.tab, t.repo_id, u.element_id FROM ${s}.lexical_postings t
      CROSS JOIN LATERAL unnest(t.element_ids) AS u(element_id)
      WHERE t.repo_id = ANY($1::integer[]) AND t.tab = ANY($2::smallint[]) AND t.term = ANY($3::text[])
      GROUP BY t.tab, t.repo_id, u.element_id HAVING count(*) = cardinality($3::text[])
    ) c
    JOIN ${s}.lexical_rows r ON r.repo_id = c.repo_id AND r.tab = c.tab AND r.element_id = c.element_id`;
}

/** In how many rows of the tables a term occurs, in the repositories: $1, $2 tables, $3 the term. */
export function documentFrequencySql(s: string): string {
  return `
    SELECT coalesce(sum(docs), 0)::bigint AS n FROM ${s}.lexical_term_stats
    WHERE repo_id = ANY($1::integer[]) AND tab = ANY($2::smallint[]) AND term = $3`;
}

/** The same for many terms at once: $3 the terms; (term, n) for each term some row holds. */
export function documentFrequenciesSql(s: string): string {
  return `
    SELECT term, sum(docs)::bigint AS n FROM ${s}.lexical_term_stats
    WHERE repo_id = ANY($1::integer[]) AND tab = ANY($2::smallint[]) AND term = ANY($3::text[])
    GROUP BY term`;
}

/** A constant as a double, read by float8in (strtod), as the C compiler reads FTS5's. */
function float(value: number | string): string {
  return `'${value}'::float8`;
}
