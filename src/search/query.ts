/**
 * The QueryProcessor: what kind of question a query is, and the pieces each
 * half of the search needs. Routing changes weights, never the machinery:
 * every query is still answered by both the vector and the lexical side.
 *
 * - identifier: `getUserById`, `Index.search`, `parse_config`, `Status`
 *   (one token that looks like code, or one capitalised word: a type
 *   name). Its definitions are looked up by name, and exact and sub-word
 *   name matches are boosted.
 * - path: `src/store/store.ts`, `vector-file.ts`. Results are confined to
 *   files whose path contains it, when any does.
 * - prose: everything else. The names it spells (code-like tokens and
 *   capitalised words) are looked up too: the file that defines one rises.
 *   A sentence that asks for a change (`fix escaped path matcher`) weighs
 *   its file's evidence otherwise (`asksChange`, CHANGE_WEIGHTS).
 */
import { splitIdentifier, stem, words } from '../text/terms.js';
import { isStopWord } from '../text/vocabulary.js';
import { ftsExpression } from '../text/fts-expression.js';

export { ftsExpression };

export type QueryKind = 'identifier' | 'path' | 'prose';

export interface ParsedQuery {
  text: string;
  kind: QueryKind;
  /** Code-like tokens of the query, and a sentence's capitalised words, as written (`Index.search` -> `Index.search`). */
  identifiers: string[];
  /** Path-like tokens (`src/store`, `store.ts`), lower-cased with forward slashes, to find in paths. */
  paths: string[];
  /** The words BM25 looks for: each word and its sub-words, lower-cased, stop words left out. */
  terms: string[];
  /**
   * The identifiers the query spells, each as the one token the lexical
   * index makes of it (`NO_INDEX`, `noIndex` -> noindex): an element that
   * holds the whole name counts for more than one holding its parts.
   */
  wholeTerms: string[];
  /** The query with path tokens taken out: what the embedder sees. */
  semanticText: string;
  /**
   * The query is nothing but names (one, or up to MAX_EXACT_NAMES code-like
   * tokens, `Index.search` included): its definitions come first, then every
   * element holding one of its whole names, then what shares only a sub-word.
   */
  exactFirst: boolean;
  /**
   * A sentence that asks for a change (`fix escaped path matcher`, `add --all to
   * show`, as a commit subject or a task is worded): it names a behaviour a
   * file implements, so the file's own evidence weighs more (CHANGE_WEIGHTS).
   */
  asksChange: boolean;
}

/** Code-like tokens a query may hold and still ask for names only ("parseConfig loadConfig"). */
const MAX_EXACT_NAMES = 3;

/** Extensions that make `name.ext` a file name rather than `Object.member`. */
const FILE_EXTENSIONS = new Set(
  'ts tsx mts cts js jsx mjs cjs py pyi md markdown json jsonc yaml yml toml txt html css scss c cc cpp h hpp go rs java rb sh'.split(
    ' ',
  ),
);

const CAPITALISED_WORD = /^\p{Lu}\p{Ll}{2,}$/u;
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::|#)[\p{L}_$][\p{L}\p{N}_$]*)*(?:\(\))?$/u;

export function isPathLike(token: string): boolean {
  if (token.includes('/') || token.includes('\\')) return /[\p{L}\p{N}]/u.test(token);
  const dot = token.lastIndexOf('.');
  return dot > 0 && FILE_EXTENSIONS.has(token.slice(dot + 1).toLowerCase());
}

/** One token that reads as code: has a case change inside, an underscore, a member dot, or call parentheses. */
export function isIdentifierLike(token: string): boolean {
  if (!IDENTIFIER.test(token)) return false;
  return /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|_|\.|::|#|\(\)$/u.test(token) || /^\p{Lu}\p{Ll}+\p{Lu}/u.test(token);
}

export function parseQuery(text: string): ParsedQuery {
  const trimmed = text.trim();
  const tokens = trimmed.split(/\s+/).filter(Boolean);
  const paths = tokens.filter(isPathLike).map((token) =>
    token
      .replace(/\\/g, '/')
      .replace(/^(\.\/)+/, '')
      .toLowerCase(),
  );
  const rest = tokens.filter((token) => !isPathLike(token));
  const single = rest.length === 1 ? rest[0]!.replace(/\(\)$/, '') : undefined;
  // One capitalised word (`Status`, `Mutex`) names a type as surely as `getUserById` names a function.
  const identifiers = single !== undefined && isSymbolWord(single) ? [single] : sentenceIdentifiers(rest);
  const kind: QueryKind =
    paths.length > 0 && rest.length === 0
      ? 'path'
      : single !== undefined && identifiers.length === 1
        ? 'identifier'
        : 'prose';
  const wholeTerms = [
    ...new Set(
      identifiers
        .flatMap((identifier) => words(identifier))
        .map((word) => splitIdentifier(word))
        .filter((parts) => parts.length > 1)
        .map((parts) => parts.join('')),
    ),
  ];
  return {
    text: trimmed,
    kind,
    identifiers,
    paths,
    terms: searchTerms(tokens),
    wholeTerms,
    semanticText: rest.join(' ') || trimmed,
    asksChange: kind === 'prose' && asksChange(tokens),
    exactFirst:
      paths.length === 0 &&
      (kind === 'identifier' ||
        (rest.length <= MAX_EXACT_NAMES && rest.every((token) => isIdentifierLike(token.replace(/\(\)$/, ''))))),
  };
}

/**
 * Verbs that open a request for a change, in the imperative (a commit
 * subject, an issue's title, a task given to an agent). A question (`how`,
 * `where`) or a topic (`request parsing`) is not one.
 */
const CHANGE_VERBS = new Set(
  `
    add adjust align allow append apply avoid bump call cancel change check clarify clean
    cleanup clear close collect combine compare consolidate convert copy correct create
    deduplicate defer delete deprecate detect disable display do don't drop emit enable enforce
    ensure escape exclude expand expose extend extract fetch fix flush force forward generate
    handle hide honor honour ignore implement improve include increase inherit initialize inline
    insert introduce invalidate isolate keep limit load lower make merge migrate move normalize
    omit optimise optimize override parallelize pass patch permit populate prefer preserve
    prevent print prioritize propagate prune raise rebuild reduce refactor refuse register
    reject reload remove rename reorder replace report reset resolve respect restore
    restrict retry reuse revert rewrite save show simplify skip sort speed split start stop
    strip support suppress switch sync throw track treat trim tune unify update upgrade use
    validate verify warn wrap write
  `
    .trim()
    .split(/\s+/),
);

/** A scope before a subject (`fix(cli):`, `caddyhttp:`, `feat!:`), which names where rather than what. */
const SUBJECT_PREFIX = /^[\p{L}\p{N}_./-]+(?:\([^)]*\))?!?:$/u;

/**
 * Whether the sentence opens, past any scope prefix, with a verb asking for a change, or saying
 * one was made (`fixed`, `added`). Not `adds` or `adding`: a doc comment describes what a
 * function does (`Adds a property to an object`), a topic names an activity (`saving models`).
 */
function asksChange(tokens: readonly string[]): boolean {
  const first = tokens.find((token) => !SUBJECT_PREFIX.test(token));
  if (first === undefined) return false;
  const word = first.toLowerCase().replace(/’/g, "'");
  return [word, word.replace(/e?d$/, ''), word.replace(/d$/, '')].some((base) => CHANGE_VERBS.has(base));
}

/**
 * The names a sentence spells: its code-like tokens, and its capitalised
 * words (`Content` in "Content protocol for encoding request bodies",
 * `Engine` in "how the Gin Engine embeds RouterGroup"), which name a type
 * when the code defines one so spelled. Words in capitals only (`HTTP`,
 * `JSON`) are left out: acronyms, not names. A token is taken as written,
 * punctuation and all ("Context," is no name).
 */
function sentenceIdentifiers(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const name = token.replace(/\(\)$/, '');
    if (isIdentifierLike(name) || CAPITALISED_WORD.test(name)) out.push(name);
  }
  return out;
}

/**
 * A query of one word that reads as a symbol: code-like, a capitalised name,
 * a leading underscore, or letters then digits (`wasm32`, `field1`: in a
 * sentence such a word is as often a version or a unit, alone it is a name).
 */
function isSymbolWord(token: string): boolean {
  return (
    isIdentifierLike(token) ||
    /^(?:\p{Lu}|_)[\p{L}\p{N}_$]*$/u.test(token) ||
    /^\p{L}[\p{L}\p{N}_$]*\p{N}[\p{L}\p{N}_$]*$/u.test(token)
  );
}

/**
 * The names whose definitions a query asks for: the last segment of each
 * identifier it spells (`Sinatra::Base` -> Base, `Index.search` -> search).
 */
export function symbolNames(parsed: ParsedQuery): string[] {
  return [...new Set(parsed.identifiers.map((identifier) => nameSegments(identifier).at(-1)!).filter(Boolean))];
}

/** The segments of a qualified name, whatever the language writes between them (`Sinatra::Base`, `Index.search`, `Foo#bar`, `$a->b`, `App\\Models`). */
export function nameSegments(identifier: string): string[] {
  return identifier.split(/::|\.|#|->|\\/);
}

/**
 * The words BM25 looks for: every word and each of its sub-words
 * (`getUserById` -> getuserbyid, get, user, by, id), lower-cased. Stop
 * words are left out unless they are all there is.
 */
export function searchTerms(tokens: readonly string[]): string[] {
  const all = new Set<string>();
  const meaningful = new Set<string>();
  for (const word of tokens.flatMap((token) => words(token))) {
    const parts = splitIdentifier(word);
    const candidates = parts.length > 1 ? [word.toLowerCase().replace(/[_$]/g, ''), ...parts] : parts;
    for (const candidate of candidates) {
      if (!candidate) continue;
      all.add(candidate);
      if (!isStopWord(stem(candidate))) meaningful.add(candidate);
    }
  }
  return [...(meaningful.size > 0 ? meaningful : all)];
}

/** The FTS5 expression for a query's tokens. */
export function matchExpression(tokens: readonly string[]): string | undefined {
  return ftsExpression(searchTerms(tokens));
}
