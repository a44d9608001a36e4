/**
 * The find_files_to_change tool's contract: its arguments and its answer,
 * as JSON Schema for the model and as types for the code.
 */
import { MAX_ISSUE_LENGTH } from '../search/localise/limits.js';
import { FEATURES, type FeatureName } from '../search/localise/file-evidence.js';
import { CODEBASE_SEARCH_PARAMETERS, REPOS_PARAMETER, type JsonSchema } from './schema.js';

/** Named for what an agent asks ("which files do I change?"), not for how it is answered (localisation). */
export const FIND_FILES_NAME = 'find_files_to_change';
export const DEFAULT_FILES_LIMIT = 10;
/** Files a model may ask for at once: past a few dozen, a file's evidence is too thin to act on. */
export const MAX_FILES_LIMIT = 50;

export const FIND_FILES_DESCRIPTION = [
  'Given an issue, a bug report or a task, lists the files most likely to need the change, best first, each with the evidence that points at it:',
  'a traceback frame in it, its path or module named, a name it defines or uses, an error message it holds, its words, its best code elements.',
  'Use it first on a new issue or failing test, to know which files to read; then read them, or use codebase_search and find_references inside them.',
  'Give the issue whole, as written: its title, prose, tracebacks, error messages and code all help; do not summarise it.',
].join(' ');

export const FIND_FILES_PARAMETERS = {
  type: 'object',
  properties: {
    issue: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_ISSUE_LENGTH,
      description: 'The issue, bug report or task, whole: tracebacks, code and error messages help.',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_FILES_LIMIT,
      default: DEFAULT_FILES_LIMIT,
      description: `How many files, 1 to ${MAX_FILES_LIMIT} (default ${DEFAULT_FILES_LIMIT}).`,
    },
    path_prefix: CODEBASE_SEARCH_PARAMETERS.properties.path_prefix,
    repos: REPOS_PARAMETER,
  },
  required: ['issue'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export interface FindFilesArgs {
  issue: string;
  limit?: number;
  path_prefix?: string;
  repos?: string[];
}

/** One kind of evidence for a file, in words (`defines CountVectorizer`, `in the traceback (fit)`). */
export interface FileEvidenceHit {
  kind: FeatureName;
  said: string[];
}

export interface FileHit {
  /** The repository it is in. */
  repo: string;
  /** Relative to the repository's root, with forward slashes. */
  path: string;
  score: number;
  /** What points at it, the strongest kind first. */
  evidence: FileEvidenceHit[];
}

export interface FindFilesOutput {
  files: FileHit[];
  /** The semantic half was unavailable: the element search inside it matched keywords only. */
  fallback_used: boolean;
  /** Files, or some of their evidence, were left out to stay within the size budget. */
  truncated?: boolean;
  /** Why the list is empty or short, and what to try next. */
  note?: string;
  /** Why the search could not run (bad arguments, a denied call, no index); files are then empty. */
  error?: string;
}

export const FIND_FILES_OUTPUT = {
  type: 'object',
  properties: {
    files: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          repo: { type: 'string' },
          path: { type: 'string' },
          score: { type: 'number' },
          evidence: {
            type: 'array',
            description:
              'the strongest kind first: frame (a traceback passes through it), path (the issue names it), module (a dotted name spells its module), defines (it defines a name the issue spells), mentions (it uses such names), error (it holds the words of an error message quoted), text (its words match the issue), elements (its code elements rank for the issue)',
            items: {
              type: 'object',
              properties: {
                kind: { type: 'string', enum: [...FEATURES] },
                said: { type: 'array', items: { type: 'string' } },
              },
              required: ['kind', 'said'],
              additionalProperties: false,
            },
          },
        },
        required: ['repo', 'path', 'score', 'evidence'],
        additionalProperties: false,
      },
    },
    fallback_used: { type: 'boolean' },
    truncated: { type: 'boolean' },
    note: { type: 'string' },
    error: { type: 'string' },
  },
  required: ['files', 'fallback_used'],
  additionalProperties: false,
} as const satisfies JsonSchema;
