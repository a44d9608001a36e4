/**
 * What a model is told about `codebase_search`: its name, when to use it,
 * and the JSON schemas of its arguments and of its answer. These are the
 * single source for every adapter (Ollama, OpenAI, Anthropic) and for MCP.
 */
import { ELEMENT_TYPES, LANGUAGE_ALIASES, LANGUAGES } from '../search/filters.js';
import { MAX_QUERY_LENGTH } from '../search/searcher.js';
import { MAX_REPOS } from '../search/scopes.js';
import { REPOSITORY_NAME_PATTERN } from '../store/repository-name.js';

export const CODEBASE_SEARCH_NAME = 'codebase_search';

export const DEFAULT_TOOL_K = 8;
/** Results a model may ask for at once; more would not fit a sensible context budget. */
export const MAX_TOOL_K = 20;

export const CODEBASE_SEARCH_DESCRIPTION = [
  'Search the indexed codebase by meaning and by name, and get the matching code.',
  'Use it before reading or changing code you have not seen: to find where something is implemented',
  '("where are passwords hashed", "retry with exponential backoff"), the definition of an identifier',
  '("getUserById", "Index.search"), or the files of an area ("src/store").',
  'Each result is a code element (function, class, method, type, Markdown section...) with its file path,',
  'line range, signature, a short description and its code. Results come best first.',
  'Describe the behaviour you are after in a few words, or give the exact name; narrow with path_prefix,',
  'language or element_type. A result marked stale is from a file edited since it was indexed: re-read the file.',
  'For a whole issue or bug report (tracebacks and all), find_files_to_change answers which files to change.',
].join(' ');

/** A JSON schema (draft-07 subset) as tool definitions carry it. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  [keyword: string]: unknown;
}

const LANGUAGE_NAMES = [...LANGUAGES, ...Object.keys(LANGUAGE_ALIASES)];

/** The `repos` argument of the tools: some repositories of the index, by name. */
export const REPOS_PARAMETER = {
  type: 'array',
  items: { type: 'string', pattern: REPOSITORY_NAME_PATTERN, maxLength: 100 },
  minItems: 1,
  maxItems: MAX_REPOS,
  uniqueItems: true,
  description: 'Only these repositories of the index, by name as index_status lists them (default: all of them).',
} as const satisfies JsonSchema;

export const CODEBASE_SEARCH_PARAMETERS = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_QUERY_LENGTH,
      description:
        'What to find: a description of the behaviour ("validate a session token"), an identifier (hashPassword, Index.search) or a path (src/auth). A whole issue goes to find_files_to_change.',
    },
    k: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TOOL_K,
      default: DEFAULT_TOOL_K,
      description: `How many results, 1 to ${MAX_TOOL_K} (default ${DEFAULT_TOOL_K}).`,
    },
    path_prefix: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description:
        'Only files under this path, relative to the repository root as results show paths (src/auth, or a file), or absolute. A glob such as src/**/*.py works too.',
    },
    language: { type: 'string', enum: LANGUAGE_NAMES, description: 'Only files in this language.' },
    element_type: { type: 'string', enum: [...ELEMENT_TYPES], description: 'Only elements of this kind.' },
    repos: REPOS_PARAMETER,
    explain: {
      type: 'boolean',
      default: false,
      description:
        "Also say how each result's score added up (its terms: each feature's value, weight and contribution), to judge a ranking rather than to read code.",
    },
  },
  required: ['query'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export interface CodebaseSearchArgs {
  query: string;
  k?: number;
  path_prefix?: string;
  language?: string;
  element_type?: string;
  repos?: string[];
  explain?: boolean;
}

/** One term of a result's score, as the CLI's --explain shows it (search/ranking/score.ts, `ScoreTerm`), rounded. */
export interface CodebaseSearchScoreTerm {
  /** A feature (a key of SCORE_WEIGHTS, `role:<role>`) or a later stage of the ranking. */
  feature: string;
  /** add: value × weight is added; multiply: the score so far (value) times the weight; replace: a stage gave another score (value). */
  op: 'add' | 'multiply' | 'replace';
  value: number;
  weight: number;
  /** What the term changed the score by: the contributions add up to the score. */
  contribution: number;
}

/** How a result's score added up (with `explain`). */
export interface CodebaseSearchExplanation {
  terms: CodebaseSearchScoreTerm[];
  /** For a query of names only, the tier ranked before the score: 3 a definition, 2 holds the whole name as typed, 1 in another spelling. */
  tier?: number;
}

export interface CodebaseSearchHit {
  /** The repository it is in. */
  repo: string;
  /** Relative to the repository's root, with forward slashes. */
  path: string;
  start_line: number;
  end_line: number;
  element_type: string;
  name: string;
  signature: string;
  description: string;
  score: number;
  /** The code as it is on disk now; null when it did not fit the size budget or could not be read. */
  snippet: string | null;
  /** The line the snippet starts at: start_line, or further down where a long element matches the query. */
  snippet_start_line?: number;
  /** The file changed since it was indexed: the lines may have moved. */
  stale: boolean;
  /** How its score added up, when the call asked (`explain`). */
  explain?: CodebaseSearchExplanation;
}

export interface CodebaseSearchOutput {
  results: CodebaseSearchHit[];
  /** The semantic half was unavailable: these are keyword (BM25) matches only. */
  fallback_used: boolean;
  /** Results were left out, or snippets shortened, to stay within the size budget. */
  truncated?: boolean;
  /** Why the list is empty or short, and what to try next. */
  note?: string;
  /** Why the search could not run (bad arguments, a denied call, no index); results are then empty. */
  error?: string;
}

const HIT_SCHEMA = {
  type: 'object',
  properties: {
    repo: { type: 'string' },
    path: { type: 'string' },
    start_line: { type: 'integer' },
    end_line: { type: 'integer' },
    snippet_start_line: { type: 'integer', description: 'where the snippet starts, when not at start_line' },
    element_type: { type: 'string' },
    name: { type: 'string' },
    signature: { type: 'string' },
    description: { type: 'string' },
    score: { type: 'number' },
    // anyOf, not a type array: a client that maps a schema onto one type a node (Gemini's, the MCP Inspector's --strict) rejects the array.
    snippet: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    stale: { type: 'boolean' },
    explain: {
      type: 'object',
      description: "how the score added up (with explain): the terms' contributions sum to the score",
      properties: {
        terms: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              feature: { type: 'string' },
              op: { type: 'string', enum: ['add', 'multiply', 'replace'] },
              value: { type: 'number' },
              weight: { type: 'number' },
              contribution: { type: 'number' },
            },
            required: ['feature', 'op', 'value', 'weight', 'contribution'],
            additionalProperties: false,
          },
        },
        tier: { type: 'integer' },
      },
      required: ['terms'],
      additionalProperties: false,
    },
  },
  required: [
    'repo',
    'path',
    'start_line',
    'end_line',
    'element_type',
    'name',
    'signature',
    'description',
    'score',
    'snippet',
    'stale',
  ],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const CODEBASE_SEARCH_OUTPUT = {
  type: 'object',
  properties: {
    results: { type: 'array', items: HIT_SCHEMA },
    fallback_used: { type: 'boolean' },
    truncated: { type: 'boolean' },
    note: { type: 'string' },
    error: { type: 'string' },
  },
  required: ['results', 'fallback_used'],
  additionalProperties: false,
} as const satisfies JsonSchema;
