/**
 * Present, the last stage: the ranked hits as results, each with its code
 * read from the file as it is now (the lines that match the query, deep in
 * a long element), whether the file changed since it was indexed, and, when
 * asked, how its score added up. Where the repository is not checked out
 * here, the code is the text the store kept when it was indexed.
 */
import { join } from 'node:path';
import { redactSecrets } from '../files/redact.js';
import type { ElementRecord } from '../store/rows.js';
import { terms } from '../text/terms.js';
import { isStopWord } from '../text/vocabulary.js';
import type { ParsedQuery } from './query.js';
import type { RankedHit } from './ranking/ranking.js';
import type { SearchResult } from './response.js';
import {
  bestSnippetStart,
  DEFAULT_SNIPPET_OPTIONS,
  type SnippetOptions,
  SourceText,
  snippetLines,
  type SourceStates,
} from './source.js';

/** Lines above an element redacted with it: a key block that starts above the element is found whole. */
const CONTEXT_LINES = 200;
/** Lines of a long element a snippet can start in (bestSnippetStart looks no further). */
const SNIPPET_REACH = 2_000;

export interface PresentOptions {
  /** The index's roots by id, and the one a root id not among them falls back to. */
  roots: ReadonlyMap<number, string>;
  /** The index's repository names by root id. */
  repos: ReadonlyMap<number, string>;
  root: string;
  /** Where each repository's files are read from (its checkout, or the text the store keeps), by root id. */
  sources: (rootId: number) => SourceStates;
  /** Read snippets (true), with limits, or not (false). */
  snippet: boolean | SnippetOptions;
  /** Add each hit's explanation. */
  explain: boolean;
}

export function presentResults(
  ranked: readonly RankedHit<ElementRecord>[],
  parsed: ParsedQuery,
  options: PresentOptions,
): SearchResult[] {
  const queryTerms = new Set(terms(parsed.text).filter((term) => !isStopWord(term)));
  const wantText = options.snippet !== false;
  const limits = typeof options.snippet === 'object' ? options.snippet : {};
  return ranked.map(({ row, score, signals, explanation }) => {
    const root = options.roots.get(row.rootId) ?? options.root;
    const state = options.sources(row.rootId).state(row, wantText, row);
    const result: SearchResult = {
      repo: options.repos.get(row.rootId) ?? '',
      path: row.path,
      absolutePath: join(root, row.path),
      startLine: row.startLine,
      endLine: row.endLine,
      type: row.type,
      name: row.name,
      // Not redacted again, unlike a snippet (read from disk): the index redacted them under these rules, since a
      // change of the rules comes with a migration whose next run reads every file again (both stores' schema.ts).
      signature: row.signature,
      description: row.description,
      language: row.language,
      score: Number(score.toFixed(6)),
      signals,
      stale: state.stale,
    };
    if (wantText && state.text) {
      const source = redactedLines(state.text, row.startLine, row.endLine, limits);
      const from = bestSnippetStart(source, row.startLine, row.endLine, queryTerms, limits);
      const { text, moreLines } = snippetLines(source, from, row.endLine, limits);
      result.snippet = text;
      if (moreLines > 0) result.snippetMoreLines = moreLines;
      if (from !== row.startLine) result.snippetStartLine = from;
    }
    if (state.problem) result.problem = state.problem;
    if (options.explain && explanation) result.explain = explanation;
    return result;
  });
}

/**
 * The lines a snippet of an element can show, with credentials redacted as
 * indexing redacts them (files/redact.ts): the snippet is read from the disk,
 * and no output (CLI text or JSON, MCP, library) may show in clear what the
 * index keeps redacted. Redacted as one text with the lines above, so that a
 * multi-line secret (a private key) that the element shows only part of is
 * still found.
 */
function redactedLines(text: SourceText, startLine: number, endLine: number, limits: SnippetOptions): SourceText {
  const first = Math.max(1, startLine - CONTEXT_LINES);
  const last = Math.min(endLine, startLine + SNIPPET_REACH + (limits.maxLines ?? DEFAULT_SNIPPET_OPTIONS.maxLines));
  // A text of the element's bytes alone has no lines above it.
  const above = text.lines(first, startLine - 1).length;
  const redacted = redactSecrets(text.lines(startLine - above, last).join('\n'));
  return new SourceText(Buffer.from(redacted, 'utf8'), startLine - above);
}
