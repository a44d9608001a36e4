/**
 * "Where is X used?": a symbol's definitions, then every line of every
 * indexed file where its name occurs as a whole word (as `grep -w` finds
 * it: code, comments and strings), grouped by file, the defining files
 * first; each line with the element around it and its text, and marked a
 * call where the syntax tree calls the name there. From the index's
 * occurrences table (text/occurrences.ts): no model, no grep, any parsed
 * language (and every other indexed file, by its words alone).
 *
 * A qualified symbol (`IndexStore.open`) narrows the definitions to that
 * owner; its uses are every occurrence of its last name, as the index
 * cannot tell which `open` a call reaches.
 */
import { join } from 'node:path';
import { redactSecrets } from '../files/redact.js';
import type { EnclosingElement, OccurrenceReads, ScopeReads } from '../store/reads.js';
import type { ElementRecord, OccurrenceFile } from '../store/rows.js';
import { decodeSites, isOccurrenceWord } from '../text/occurrences.js';
import { SearchError } from './errors.js';
import { nameSegments } from './query.js';
import { type SourceStates, SourceText } from './source.js';

export interface ReferencesOptions {
  /** Occurrence lines listed at most (default 2,000; at most MAX_REFERENCE_SITES); `total` counts them all. */
  limit?: number;
  /** Read each line's text (default true). */
  text?: boolean;
  /** Only these repositories of the index, by name (default: all of them). */
  repos?: readonly string[];
}

export const DEFAULT_REFERENCE_SITES = 2_000;
export const MAX_REFERENCE_SITES = 20_000;
/** A line's text is cut to this many characters (a minified line is one line). */
const MAX_LINE_CHARS = 300;
/** A file with more lines listed than this is read whole (and cached); fewer are read element by element. */
const WHOLE_FILE_SITES = 8;
/** Definitions listed at most. */
const MAX_DEFINITIONS = 100;

export interface ReferenceDefinition {
  /** The repository it is in. */
  repo: string;
  path: string;
  absolutePath: string;
  name: string;
  type: string;
  startLine: number;
  endLine: number;
  signature: string;
}

export interface ReferenceSite {
  /** 1-based. */
  line: number;
  /** The line as the file is now (absent when the file cannot be read, or text was not asked for). */
  text?: string;
  /** The syntax tree calls the name on this line. */
  call: boolean;
  /** The first line of a definition of the symbol that names it. */
  definition: boolean;
  /** The innermost element around the line (absent at the top level of a file). */
  element?: { type: string; name: string; startLine: number; endLine: number };
}

export interface ReferenceFile {
  /** The repository it is in. */
  repo: string;
  path: string;
  absolutePath: string;
  /** The file defines the symbol. */
  defines: boolean;
  /** The file changed since it was indexed: its lines may have moved. */
  stale: boolean;
  /** Why its lines' text is missing (gone, unreadable). */
  problem?: string;
  sites: ReferenceSite[];
}

export interface ReferencesResponse {
  symbol: string;
  /** The word looked up: the symbol's last name. */
  name: string;
  definitions: ReferenceDefinition[];
  files: ReferenceFile[];
  /** Occurrence lines in all, and in how many files; `files` may list fewer (limit). */
  total: number;
  totalFiles: number;
  truncated: boolean;
  timings: { totalMs: number };
}

export interface ReferenceSources {
  occurrences: OccurrenceReads;
  search: ScopeReads;
  /** The root ids searched, when some of the index's repositories only. */
  scope: readonly number[] | undefined;
  /** Each repository's root directory, and its name, by root id. */
  roots: ReadonlyMap<number, string>;
  repos: ReadonlyMap<number, string>;
  root: string;
  /** Where a repository's files are read from (its checkout, or the text the store keeps), given the files wanted. */
  sources(rootId: number, fileIds: readonly number[]): Promise<SourceStates>;
}

/** A symbol as asked (`getUser`, `Index.search`, `Foo::bar`, `save()`) split into its owner path and last name. */
export function parseSymbol(symbol: unknown): { name: string; qualified: string | undefined } {
  if (typeof symbol !== 'string' || !symbol.trim())
    throw new SearchError('name a symbol to find the references of (an identifier such as getUserById)', 'BAD_QUERY');
  const written = symbol.trim().replace(/\(\)$/, '');
  const segments = nameSegments(written);
  const name = segments.at(-1)!;
  if (!isOccurrenceWord(name))
    throw new SearchError(
      `"${written.slice(0, 60)}" is not a symbol name: use letters, digits and underscores, two characters or more (a qualified name like Index.search is fine)`,
      'BAD_QUERY',
    );
  return { name, qualified: segments.length > 1 ? segments.join('.') : undefined };
}

export async function findReferences(
  symbol: string,
  from: ReferenceSources,
  options: ReferencesOptions = {},
): Promise<ReferencesResponse> {
  const started = performance.now();
  const { name, qualified } = parseSymbol(symbol);
  const limit = validateLimit(options.limit);
  const rootOf = (rootId: number) => from.roots.get(rootId) ?? from.root;
  const repoOf = (rootId: number) => from.repos.get(rootId) ?? '';

  const definitions = await definitionsOf(name, qualified, from.search);
  const definingFiles = new Set(definitions.map((row) => row.fileId));
  const occurring = await from.occurrences.files(name, from.scope);
  // Defining files first, each group in path order (the reader gives path order).
  const ordered = [
    ...occurring.filter((file) => definingFiles.has(file.fileId)),
    ...occurring.filter((file) => !definingFiles.has(file.fileId)),
  ];
  const decoded = ordered.map((file) => ({ file, sites: decodeSites(file.lines) }));
  const total = decoded.reduce((sum, { sites }) => sum + sites.length, 0);

  // Only the lines listed are read: the elements around each, and their text.
  const listed: typeof decoded = [];
  let budget = limit;
  for (const entry of decoded) {
    if (budget <= 0) break;
    listed.push(budget >= entry.sites.length ? entry : { ...entry, sites: entry.sites.slice(0, budget) });
    budget -= entry.sites.length;
  }
  const readers = new Map<number, Promise<SourceStates>>();
  const files: ReferenceFile[] = [];
  for (const { file, sites } of listed) {
    let reader = readers.get(file.rootId);
    if (!reader) {
      const ids = listed.filter((entry) => entry.file.rootId === file.rootId).map((entry) => entry.file.fileId);
      readers.set(file.rootId, (reader = from.sources(file.rootId, ids)));
    }
    const holders = await from.occurrences.around(
      file,
      sites.map((site) => site.line),
    );
    const presented = presentFile(
      file,
      sites,
      holders,
      definitions,
      { reader: await reader, root: rootOf(file.rootId) },
      options,
    );
    files.push({ repo: repoOf(file.rootId), ...presented });
  }
  return {
    symbol: symbol.trim(),
    name,
    definitions: definitions.map((row) => ({
      repo: repoOf(row.rootId),
      path: row.path,
      absolutePath: join(rootOf(row.rootId), row.path),
      name: row.name,
      type: row.type,
      startLine: row.startLine,
      endLine: row.endLine,
      signature: row.signature,
    })),
    files,
    total,
    totalFiles: occurring.length,
    truncated: total > limit,
    timings: { totalMs: performance.now() - started },
  };
}

/** Elements named `name` exactly (case and all), and for a qualified symbol, owned as it says. */
async function definitionsOf(name: string, qualified: string | undefined, reads: ScopeReads): Promise<ElementRecord[]> {
  const ids = await reads.definitions([name], {}, MAX_DEFINITIONS);
  const wanted = qualified?.toLowerCase();
  return [...(await reads.rows(ids)).values()]
    .filter((row) => {
      if (row.name.slice(row.name.lastIndexOf('.') + 1) !== name) return false;
      if (!wanted) return true;
      const lower = row.name.toLowerCase();
      return lower === wanted || lower.endsWith(`.${wanted}`);
    })
    .sort((a, b) => a.path.localeCompare(b.path) || a.startLine - b.startLine);
}

function presentFile(
  file: OccurrenceFile,
  sites: readonly { line: number; call: boolean }[],
  holders: readonly (EnclosingElement | undefined)[],
  definitions: readonly ElementRecord[],
  from: { reader: SourceStates; root: string },
  options: ReferencesOptions,
): Omit<ReferenceFile, 'repo'> {
  const wantText = options.text ?? true;
  // Stale or not, without reading the file; its text comes element by element below.
  const state = from.reader.state(file, false);
  const ownDefinitions = definitions.filter((row) => row.fileId === file.fileId);
  const namedAt = new Set<number>();
  const texts = new Map<number, SourceText | undefined>();
  const redacted = new Map<number, SourceText>();
  const out: ReferenceSite[] = sites.map(({ line, call }, i) => {
    const site: ReferenceSite = { line, call, definition: false };
    // A definition's first line that holds the name is where it is defined.
    const defining = ownDefinitions.find((row) => row.startLine <= line && line <= row.endLine);
    if (defining && !namedAt.has(defining.id)) {
      namedAt.add(defining.id);
      site.definition = true;
    }
    const holder = holders[i];
    // A chunk (code outside elements) names nothing; its bytes still hold the line.
    if (holder && holder.type !== 'chunk')
      site.element = { type: holder.type, name: holder.name, startLine: holder.startLine, endLine: holder.endLine };
    if (wantText && !state.problem) {
      // Many lines of one file: the whole file, read once and kept across searches (SourceCache);
      // a few: only the bytes of the elements that hold them.
      const whole = sites.length > WHOLE_FILE_SITES;
      const key = whole ? -1 : (holder?.vectorId ?? -1);
      if (!texts.has(key)) texts.set(key, from.reader.state(file, true, whole ? undefined : holder).text);
      const source = texts.get(key);
      if (source && !redacted.has(key)) {
        const clean = redactedText(source, line);
        if (clean) redacted.set(key, clean);
      }
      const text = redacted.get(key)?.lines(line, line)[0];
      if (text !== undefined) site.text = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
    }
    return site;
  });
  const result: Omit<ReferenceFile, 'repo'> = {
    path: file.path,
    absolutePath: join(from.root, file.path),
    defines: ownDefinitions.length > 0,
    stale: state.stale,
    sites: out,
  };
  if (state.problem) result.problem = state.problem;
  return result;
}

/**
 * The text with credentials redacted as indexing redacts them
 * (files/redact.ts): the lines are printed (`oc-vector-search --refs`) or
 * returned, and are read from the disk. Redacted as one text, so that a key
 * block's lines are found. Undefined when the text does not hold `line`
 * (then where it starts cannot be told, and the line is not shown anyway).
 */
function redactedText(text: SourceText, line: number): SourceText | undefined {
  if (text.lines(line, line).length === 0) return undefined;
  const all = text.lines(1, Number.MAX_SAFE_INTEGER);
  const firstLine = line - (all.length - text.lines(line, Number.MAX_SAFE_INTEGER).length);
  return new SourceText(Buffer.from(redactSecrets(all.join('\n')), 'utf8'), firstLine);
}

function validateLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_REFERENCE_SITES;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_REFERENCE_SITES)
    throw new SearchError(
      `limit must be an integer from 1 to ${MAX_REFERENCE_SITES}, not ${String(limit)}`,
      'BAD_OPTION',
    );
  return limit;
}
