/**
 * The find_references tool's contract: its arguments and its answer, as
 * JSON Schema for the model and as types for the code.
 */
import { REPOS_PARAMETER, type JsonSchema } from './schema.js';

export const FIND_REFERENCES_NAME = 'find_references';
export const DEFAULT_REFERENCE_LINES = 200;
export const MAX_REFERENCE_LINES = 2_000;

export const FIND_REFERENCES_DESCRIPTION = [
  'Lists where a symbol is defined and every line that uses it: its definitions, then each file where its name occurs as a whole word (code, comments, strings), with the line number, the line, the enclosing function or class, and whether the line calls it.',
  'Use it for "where is X used / called / referenced", before renaming or changing a signature, and to find every caller: it is exact, like grep -w, and reads the index only.',
  'Give the identifier as written (getUserById, parse_config); a qualified name (Index.search) narrows the definitions, while its uses are every occurrence of the last name.',
].join(' ');

export const FIND_REFERENCES_PARAMETERS = {
  type: 'object',
  properties: {
    symbol: {
      type: 'string',
      minLength: 2,
      maxLength: 200,
      description:
        'The symbol: an identifier as written in the code (case matters), or a qualified name (Index.search).',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_REFERENCE_LINES,
      default: DEFAULT_REFERENCE_LINES,
      description: `Lines listed at most, 1 to ${MAX_REFERENCE_LINES} (default ${DEFAULT_REFERENCE_LINES}); total says how many there are.`,
    },
    repos: REPOS_PARAMETER,
  },
  required: ['symbol'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export interface FindReferencesArgs {
  symbol: string;
  limit?: number;
  repos?: string[];
}

export interface ReferenceDefinitionHit {
  repo: string;
  path: string;
  start_line: number;
  end_line: number;
  element_type: string;
  name: string;
  signature: string;
}

export interface ReferenceLineHit {
  line: number;
  text: string | null;
  call: boolean;
  definition: boolean;
  /** The enclosing element's name (absent at a file's top level). */
  in?: string;
}

export interface ReferenceFileHit {
  repo: string;
  path: string;
  defines: boolean;
  stale: boolean;
  lines: ReferenceLineHit[];
}

export interface FindReferencesOutput {
  symbol: string;
  definitions: ReferenceDefinitionHit[];
  files: ReferenceFileHit[];
  /** Lines and files where the name occurs in all; the answer may list fewer (limit, size budget). */
  total: number;
  total_files: number;
  truncated: boolean;
  note?: string;
  error?: string;
}

export const FIND_REFERENCES_OUTPUT = {
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    definitions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          repo: { type: 'string' },
          path: { type: 'string' },
          start_line: { type: 'integer' },
          end_line: { type: 'integer' },
          element_type: { type: 'string' },
          name: { type: 'string' },
          signature: { type: 'string' },
        },
        required: ['repo', 'path', 'start_line', 'end_line', 'element_type', 'name', 'signature'],
      },
    },
    files: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          repo: { type: 'string' },
          path: { type: 'string' },
          defines: { type: 'boolean' },
          stale: { type: 'boolean' },
          lines: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                line: { type: 'integer' },
                // anyOf, not a type array: a client that maps a schema onto one type a node (Gemini's, the MCP Inspector's --strict) rejects the array.
                text: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                call: { type: 'boolean' },
                definition: { type: 'boolean' },
                in: { type: 'string' },
              },
              required: ['line', 'text', 'call', 'definition'],
            },
          },
        },
        required: ['repo', 'path', 'defines', 'stale', 'lines'],
      },
    },
    total: { type: 'integer' },
    total_files: { type: 'integer' },
    truncated: { type: 'boolean' },
    note: { type: 'string' },
    error: { type: 'string' },
  },
  required: ['symbol', 'definitions', 'files', 'total', 'total_files', 'truncated'],
} as const satisfies JsonSchema;
