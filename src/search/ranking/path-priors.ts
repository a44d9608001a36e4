/**
 * Features of a file's path, measured before its content is read: its
 * roles (implementation comes before tests, documentation, examples,
 * benchmarks and generated or vendored code, unless the query asks for
 * those; TypeScript declaration files are not held back, being the API a
 * question is often about), and how its name spells the query: a file
 * whose name the query spells (`binding` in binding/json.go, `router` in
 * router.ts) is more likely than one whose content merely mentions the
 * words; more so when the query spells all of the file's name
 * (`streams.py` for "response streaming").
 */
import { posix } from 'node:path';
import { fileStem } from '../../files/rules.js';
import { splitIdentifier, stem } from '../../text/terms.js';
import { conceptFor, isStopWord } from '../../text/vocabulary.js';
import { ROLE_PRIOR } from './knobs.js';

/** What a file is for, by its path: each role but implementation holds a result back (ROLE_PRIOR in knobs.ts). */
export type PathRole = keyof typeof ROLE_PRIOR;

const TEST_FILE =
  /(?:^|\/)(?:test_[^/]*|[^/]*_test|[^/]*_spec|[^/]*[.-](?:test|spec)s?|[^/]*(?:Tests?|Spec|Suite))\.[a-z0-9]+$|(?:^|\/)(?:conftest\.py|test_helpers?[^/]*)$/;
/** Test directories, also a package of tests named after what it tests (`caddytest/`, `integration_tests/`; four letters or more before `test`, so not `latest/`). */
const TEST_DIR =
  /(?:^|\/)(?:tests?|__tests__|__mocks__|spec|specs|testing|testdata|fixtures?|e2e|[a-z0-9]+[_-]tests?|[a-z0-9]{4,}tests?)\//i;
const DOCS =
  /(?:^|\/)(?:docs?|documentation|doc_src|docs_src|man)\/|\.(?:md|mdx|markdown|rst|adoc)$|(?:^|\/)(?:README|CHANGELOG|CHANGES|HISTORY|CONTRIBUTING|LICENSE|NOTICE)[^/]*$|(?:^|\/)\.github\/(?:ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE|DISCUSSION_TEMPLATE)\b|(?:^|\/)pull_request_template[^/]*$/i;
const EXAMPLES = /(?:^|\/)(?:_?examples?|samples?|demos?|playground|tutorials?)\//i;
const BENCH = /(?:^|\/)(?:bench|benches|benchmarks?)\/|(?:^|\/)[^/]*[._-]bench(?:mark)?s?\.[a-z0-9]+$/i;
const GENERATED = /(?:^|\/)(?:generated|gen|__generated__)\/|\.(?:pb|g|gen|generated)\.[a-z0-9]+$|_pb2\.py$/i;
const VENDOR = /(?:^|\/)(?:vendor|third_party|thirdparty|external|deps)\//i;

const ROLE_PATTERNS: readonly [PathRole, RegExp][] = [
  ['test', TEST_FILE],
  ['test', TEST_DIR],
  ['docs', DOCS],
  ['example', EXAMPLES],
  ['bench', BENCH],
  ['generated', GENERATED],
  ['vendor', VENDOR],
];

/** Query words that ask for a role: then its files are not held back. */
const ROLE_WORDS: Readonly<Record<PathRole, readonly string[]>> = {
  test: ['test', 'tests', 'testing', 'spec', 'specs', 'mock', 'mocks', 'fixture', 'fixtures', 'assert', 'assertion'],
  docs: ['doc', 'docs', 'documentation', 'readme', 'guide', 'tutorial', 'changelog', 'markdown'],
  example: ['example', 'examples', 'sample', 'samples', 'demo', 'tutorial'],
  bench: ['bench', 'benchmark', 'benchmarks', 'performance'],
  generated: ['generated', 'protobuf', 'codegen'],
  vendor: ['vendor', 'vendored', 'third'],
  plain: ['template', 'templates'],
};

function pathRoles(path: string): Set<PathRole> {
  const roles = new Set<PathRole>();
  for (const [role, pattern] of ROLE_PATTERNS) if (pattern.test(path)) roles.add(role);
  return roles;
}

/** The roles a query asks for, by its words. */
export function requestedRoles(queryWords: readonly string[]): Set<PathRole> {
  const lower = new Set(queryWords.map((word) => word.toLowerCase()));
  const roles = new Set<PathRole>();
  for (const [role, words] of Object.entries(ROLE_WORDS) as [PathRole, readonly string[]][])
    if (words.some((word) => lower.has(word))) roles.add(role);
  return roles;
}

/**
 * Formats of plain text (no grammar reads them) that are seldom written by hand, or repeat what
 * the code they go with says: templates that generate code (`.eex`, `.tt`, `.stub`), API dumps
 * (`.api`), build and property files, XML, data and test expectations. A format not named here
 * (a language with no grammar in this project, a schema, a style sheet, a view template) keeps
 * its place: when in doubt, a file is taken for code.
 */
const SELDOM_EDITED_FORMATS = new Set(
  `eex tt stub tmpl tpl api xml pro properties txt conf cfg ini in am m4 cmake bazel def lock sum csv tsv svg
   snap golden out expected log pem crt br gz`
    .trim()
    .split(/\s+/),
);

/**
 * The roles of a path that the query did not ask for: each holds the result back by its ROLE_PRIOR.
 * `plain` is the role of a file the index reads as plain text (`language`, as indexed) in a format
 * seldom written by hand (SELDOM_EDITED_FORMATS, or no extension at all: test data, `Makefile`),
 * unless one of the query's words (`queryWords`, lower case) names the file (`xml` or `pom` for
 * pom.xml, `dockerfile` for Dockerfile).
 */
export function heldBackRoles(
  path: string,
  requested: ReadonlySet<PathRole>,
  language?: string,
  queryWords: ReadonlySet<string> = new Set(),
): PathRole[] {
  const roles = pathRoles(path);
  if (language === 'text' && isSeldomEdited(path) && !namesFile(path, queryWords)) roles.add('plain');
  return [...roles].filter((role) => !requested.has(role));
}

/** A plain-text file in a format seldom written by hand: one of SELDOM_EDITED_FORMATS, or no extension. */
function isSeldomEdited(path: string): boolean {
  const name = posix.basename(path).toLowerCase();
  const dot = name.lastIndexOf('.');
  return dot <= 0 || SELDOM_EDITED_FORMATS.has(name.slice(dot + 1));
}

/** Whether the query's words name the file: its name, or a part of it between dots (`pom`, `xml`, `dockerfile`). */
function namesFile(path: string, queryWords: ReadonlySet<string>): boolean {
  const name = posix.basename(path).toLowerCase();
  return queryWords.has(name) || name.split('.').some((part) => queryWords.has(part));
}

/** The product of the priors of the roles, in their order (1 for none). */
export function rolePriorOf(roles: readonly PathRole[]): number {
  let prior = 1;
  for (const role of roles) prior *= ROLE_PRIOR[role];
  return prior;
}

/** The product of the priors of a path's roles that the query did not ask for. */
export function rolePrior(path: string, requested: ReadonlySet<PathRole>): number {
  return rolePriorOf(heldBackRoles(path, requested));
}

/** How a file's path spells the query. */
export interface PathWordMatch {
  /** The share of the query's meaningful words that the file's name or its directory's name spells. */
  share: number;
  /**
   * The share of the file name's own words that the query spells: 1 for
   * `streams.py` under "response streaming and payload", `args.go` under
   * "positional argument validators". A file named after what a question
   * is about is where it is answered, more often than a file that merely
   * mentions the words.
   */
  coverage: number;
}

/**
 * Words match when one is a prefix of the other (three letters or more,
 * at most four letters apart: `dependency` ~ `dependencies`), before or
 * after stemming (`streams` ~ `streaming`, `distilled` ~ `distillation`),
 * or when the vocabulary puts them in one group (`args` ~ `argument`).
 */
export function pathWordMatch(path: string, keywords: readonly string[]): PathWordMatch {
  if (keywords.length === 0) return { share: 0, coverage: 0 };
  const own = splitIdentifier(fileStem(path));
  const directory = posix.basename(posix.dirname(path));
  const parts = directory && directory !== '.' ? [...own, ...splitIdentifier(directory)] : own;
  let matched = 0;
  for (const keyword of keywords) if (parts.some((part) => wordsMatch(keyword, part))) matched++;
  const named = own.filter((part) => part.length >= 3 && !isStopWord(stem(part)));
  let covered = 0;
  for (const part of named) if (keywords.some((keyword) => wordsMatch(keyword, part))) covered++;
  return { share: matched / keywords.length, coverage: named.length > 0 ? covered / named.length : 0 };
}

/** Lower-cased words of a query worth matching against paths: no stop words, three letters or more. */
export function meaningfulWords(queryWords: readonly string[]): string[] {
  const out = new Set<string>();
  for (const word of queryWords) {
    for (const part of splitIdentifier(word)) if (part.length >= 3 && !isStopWord(stem(part))) out.add(part);
  }
  return [...out];
}

function wordsMatch(a: string, b: string): boolean {
  if (sharesPrefix(a, b) || sharesPrefix(stem(a), stem(b))) return true;
  const concept = conceptFor(stem(a));
  return concept !== undefined && concept === conceptFor(stem(b));
}

function sharesPrefix(a: string, b: string): boolean {
  if (a === b) return true;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return shorter.length >= 3 && longer.startsWith(shorter) && shorter.length >= longer.length - 4;
}
