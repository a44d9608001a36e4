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
import { isEnglishStopWord } from '../text/vocabulary.js';
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
  /**
   * The words BM25 looks for: each word and its sub-words, lower-cased, stop words left out;
   * for a request, not the words that only say what kind of change it is (`requestTerms`).
   */
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
  // A sentence past its scope (`fix(cli):`, `env activate:`): where a request's verb is.
  const subject = withoutScope(tokens);
  const change = kind === 'prose' && asksChange(tokens, subject);
  return {
    text: trimmed,
    kind,
    identifiers,
    paths,
    terms: change ? requestTerms(tokens, subject) : searchTerms(tokens),
    wholeTerms,
    semanticText: rest.join(' ') || trimmed,
    asksChange: change,
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
    accept adapt add adhere adjust align allocate allow amend append apply ask avoid
    bump call cancel change check clarify clean cleanup clear close collect combine compare
    consider consolidate convert copy correct create deduplicate defer delete deprecate detect
    disable display do don't drop emit enable enforce ensure escape evaluate exclude expand
    expose extend extract fail fall fallback fetch fix flush force forward generate handle
    hide honor honour ignore implement improve include increase inherit initialize inline
    insert introduce invalidate isolate keep limit load lower lowercase make merge migrate
    move normalize omit optimise optimize override parallelize pass patch permit populate
    preallocate prefer preserve prevent print prioritize propagate propose prune raise
    rebuild reduce refactor refuse register reject reload remove rename reorder replace
    report reset resolve respect restore restrict retry reuse revert rewrite save
    seek send shield show simplify skip sort speed split start stop strip suggest support
    suppress switch sync throw track treat trim tune unify update upgrade use validate
    verify warn wrap write
  `
    .trim()
    .split(/\s+/),
);

/**
 * Verbs of change that say what kind of change a request is, not what the code does: every
 * commit log repeats them, and code holds them by accident (a `# fix` comment, an `add`
 * method), so searched for they pull in whatever file spells them. Verbs that name a
 * behaviour (`validate`, `strip`, `flush`, `retry`) stay search terms.
 */
const KIND_OF_CHANGE_VERBS = new Set(
  `add adjust allow avoid bump change clean cleanup correct do drop ensure fix implement improve
    introduce make polish prevent refactor remove rework simplify support tidy tweak update use`
    .trim()
    .split(/\s+/),
);

/**
 * Conventional commit types (`fix:`, `feat(cli):`, `perf!:`): a subject so labelled asks for
 * a change to the code. The label is a kind of change too, not a search term; its scope
 * (`cli`) stays one.
 */
const CODE_CHANGE_TYPES = new Set('feat feature fix bugfix hotfix perf refactor'.split(' '));
const COMMIT_TYPES = new Set([...CODE_CHANGE_TYPES, ...'chore docs style test tests build ci revert'.split(' ')]);
const COMMIT_TYPE_PREFIX = /^(\p{L}+)(?=[(!:])/u;

/** Words that may come before the verb of a request (`always include`, `only add`, `also handle`). */
const LEADING_ADVERBS = new Set(
  'also always only now further still just properly correctly explicitly automatically'.split(' '),
);

/** A comparative in front asks for the thing to become so (`better error report when …`, `faster startup`). */
const COMPARATIVES = new Set('better faster clearer simpler safer smaller stricter cleaner more less fewer'.split(' '));

/**
 * Words that say a behaviour is wrong or wanted otherwise (`extras should preserve markers`,
 * `copy_headers does not strip …`, `broken icon on windows`, `log 499 instead of 0`): a bug
 * report asks for a change as a request does. A topic (`request parsing`) holds none of them.
 */
const DEFECT_WORDS = new Set(
  `should shouldn't must not never instead broken wrong fail fails failing doesn't don't isn't aren't can't cannot won't wasn't`.split(
    ' ',
  ),
);
/** A defect word counts this near the start: further on, it is a clause (`… when it is not set`). */
const DEFECT_WORD_REACH = 4;

/**
 * Words that open a question (`how …`, `where …`, `does …`): a question asks where, not for a
 * change. Not `do`, which opens a request as often (`do not retry on 404`).
 */
const QUESTION_WORDS = new Set(
  'how what where why which when who whom whose does did is are was were can could would'.split(' '),
);

/** A scope before a subject (`fix(cli):`, `caddyhttp:`, `feat!:`), which names where rather than what. */
const SUBJECT_PREFIX = /^[\p{L}\p{N}_./-]+(?:\([^)]*\))?!?:$/u;
/** A scope of a few words (`env activate:`, `cache clear:`) ends with a colon within this many words. */
const MAX_SCOPE_WORDS = 3;
const SCOPE_END = /^[\p{L}\p{N}_./-]+:$/u;

/**
 * Whether the sentence asks for a change: it carries a commit type that changes code
 * (`perf: …`, CODE_CHANGE_TYPES); or, past any scope prefix and a leading adverb, it opens
 * with a verb of change, or says one was made (`fixed`, `added`), or with a comparative
 * (`better …`); or it reports a defect or a wish (DEFECT_WORDS, near its start). Not `adds`
 * or `adding`: a doc comment describes what a function does (`Adds a property to an object`),
 * a topic names an activity (`saving models`). `subject`: the tokens past their scope (`withoutScope`).
 */
function asksChange(tokens: readonly string[], subject: readonly string[]): boolean {
  if (tokens.length > 1 && CODE_CHANGE_TYPES.has(commitType(tokens[0]!) ?? '')) return true;
  const opening = subject[0];
  if (opening === undefined || QUESTION_WORDS.has(normalizeWord(opening))) return false;
  if (subject.slice(0, DEFECT_WORD_REACH).some((token) => DEFECT_WORDS.has(normalizeWord(token)))) return true;
  const word = normalizeWord(subject[verbAt(subject)]!);
  return COMPARATIVES.has(word) || isVerbIn(word, CHANGE_VERBS);
}

/** Where a subject's verb would be: past a leading adverb (`always include …`). */
function verbAt(subject: readonly string[]): number {
  return subject.length > 1 && LEADING_ADVERBS.has(normalizeWord(subject[0]!)) ? 1 : 0;
}

/** Whether a word is one of the verbs, as written or in the past tense (`fixed`, `added`, `used`). */
function isVerbIn(word: string, verbs: ReadonlySet<string>): boolean {
  return [word, word.replace(/e?d$/, ''), word.replace(/d$/, '')].some((base) => verbs.has(base));
}

/** The conventional commit type a prefix spells (`feat(cli):` -> feat), lower-cased; undefined for a scope (`caddyhttp:`). */
function commitType(token: string): string | undefined {
  if (!SUBJECT_PREFIX.test(token)) return undefined;
  const type = COMMIT_TYPE_PREFIX.exec(token)?.[1]?.toLowerCase();
  return type !== undefined && COMMIT_TYPES.has(type) ? type : undefined;
}

/**
 * The search terms of a request: its words less the kind of change it asks for, which is its
 * commit type (`fix(cli):` leaves `cli`) and an opening verb of KIND_OF_CHANGE_VERBS (`fix
 * crash on empty input` searches `crash on empty input`). All its words when nothing else is left.
 * `subject`: the tokens past their scope, as asksChange read them.
 */
function requestTerms(tokens: readonly string[], subject: readonly string[]): string[] {
  const verb = tokens.length - subject.length + verbAt(subject);
  const searched = tokens.flatMap((token, i) => {
    if (i === verb && isVerbIn(normalizeWord(token), KIND_OF_CHANGE_VERBS)) return [];
    const type = i < verb ? commitType(token) : undefined;
    return type === undefined ? [token] : [token.slice(type.length)];
  });
  const terms = searchTerms(searched);
  return terms.length > 0 ? terms : searchTerms(tokens);
}

/**
 * A tracker's ticket (`KTOR-9761`, `#1234`) or a branch tag (`[13.x]`) in front of a subject:
 * bookkeeping, which puts the sentence's verb one word further on.
 */
const TICKET = /^(?:\p{Lu}[\p{Lu}\p{N}]+-\p{N}+|#\p{N}+|\[[^\]\s]+\])[:.]?$/u;

/** The sentence past its scope: tickets and prefixes of one word (`KTOR-9761`, `fix(cli):`), then a scope of a few words ending with a colon. */
function withoutScope(tokens: readonly string[]): readonly string[] {
  let start = 0;
  while (start < tokens.length - 1 && (SUBJECT_PREFIX.test(tokens[start]!) || TICKET.test(tokens[start]!))) start++;
  const rest = tokens.slice(start);
  const scopeEnd = rest.slice(0, MAX_SCOPE_WORDS).findIndex((token) => SCOPE_END.test(token));
  return scopeEnd >= 0 && scopeEnd < rest.length - 1 ? rest.slice(scopeEnd + 1) : rest;
}

/** A token as a word: lower case, straight apostrophes, no quotes or punctuation around it. */
function normalizeWord(token: string): string {
  return token
    .toLowerCase()
    .replace(/’/g, "'")
    .replace(/^[`'"([]+|[`'")\],.;:!?]+$/g, '');
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
 * (`getUserById` -> getuserbyid, get, user, by, id), lower-cased. English
 * function words are left out unless they are all there is; a language's
 * keywords stay (`static content`), weighed by their rarity like any word.
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
      if (!isEnglishStopWord(stem(candidate))) meaningful.add(candidate);
    }
  }
  return [...(meaningful.size > 0 ? meaningful : all)];
}

/** The FTS5 expression for a query's tokens. */
export function matchExpression(tokens: readonly string[]): string | undefined {
  return ftsExpression(searchTerms(tokens));
}
