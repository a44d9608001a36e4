/**
 * The analysis schema and prompt from resources/ocvector/, and the ajv
 * validator for the model's answers. PROMPT_VERSION changes whenever either
 * file (or the narrowing the model writes under) changes, so cached answers
 * from another prompt are never reused.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { lazyValidator } from '../../lazy-validator.js';
import { ANSWER_FORMAT } from './answer-format.js';
import { RESOURCES_DIR, RESULT_SCHEMA } from './result-schema.js';

export { RESULT_SCHEMA };

const PROMPT_TEMPLATE = readFileSync(`${RESOURCES_DIR}ocvector-prompt.txt`, 'utf8');
/**
 * The schema the answer is written under (answer-format.ts). The prompt does not show it: the
 * server's grammar holds the answer to it, and Qwen2.5-Coder-0.5B, shown it, copied its
 * annotations as descriptions ("One or two sentences: what the file is for"). It is part of
 * the prompt's version all the same.
 */
const SCHEMA_TEXT = JSON.stringify(ANSWER_FORMAT);

export const PROMPT_VERSION = createHash('sha256')
  .update(PROMPT_TEMPLATE)
  .update(SCHEMA_TEXT)
  .digest('hex')
  .slice(0, 12);

/** The answer shape the schema describes (kebab-case keys, as the model writes them). */
export interface ModelElement {
  'property-type': string;
  name: string;
  'access-modifier': string;
  'start-line': number;
  'end-line': number;
  signature: string;
  description: string;
  parameters?: { name: string; type: string }[];
  'return-type'?: string;
  properties?: { name: string; type: string; accessors?: string[] }[];
  dependencies?: { type: string; target: string }[];
}

export interface ModelAnswer {
  'file-path': string;
  language: string;
  summary: string;
  imports: { module: string; line: number }[];
  elements: ModelElement[];
}

const validateAnswer = lazyValidator<ModelAnswer>(RESULT_SCHEMA, { allErrors: true, strict: false });

export type Checked =
  | { ok: true; answer: ModelAnswer }
  | { ok: false; reason: 'invalid-json' | 'schema-violation'; detail: string };

/**
 * Parses and validates a model's reply against the schema; `adapt` turns
 * the parsed value into the schema's terms first (a server's dialect).
 */
export function checkAnswer(content: string, adapt: (value: unknown) => unknown = (value) => value): Checked {
  let value: unknown;
  try {
    value = adapt(JSON.parse(content));
  } catch (error) {
    return { ok: false, reason: 'invalid-json', detail: (error as Error).message };
  }
  if (validateAnswer(value)) return { ok: true, answer: value };
  return { ok: false, reason: 'schema-violation', detail: describeErrors(validateAnswer.errors ?? []) };
}

/**
 * Answers read back from a cache, as the schema has them, or undefined (a miss) for anything
 * else: the cache of an index is data that may have come with a clone (docs/security.md), so
 * what it holds is checked as a model's reply is.
 */
export function cachedAnswers(value: unknown): ModelAnswer[] | undefined {
  if (!Array.isArray(value) || !value.every((answer) => validateAnswer(answer))) return undefined;
  return value as ModelAnswer[];
}

function describeErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

export interface PromptPart {
  index: number;
  count: number;
  firstLine: number;
  lastLine: number;
}

/** An element the model is asked to describe, as the prompt lists it. */
export interface AskedElement {
  name: string;
  type: string;
  startLine: number;
  endLine: number;
}

/**
 * The prompt for a file (or one part of it): the elements to describe, as the syntax tree found
 * them, and the lines numbered.
 */
export function buildPrompt(
  path: string,
  language: string,
  lines: string[],
  part: PromptPart | undefined,
  elements: readonly AskedElement[] = [],
): string {
  const first = part?.firstLine ?? 1;
  const numbered = lines.map((line, i) => `${first + i}| ${line}`).join('\n');
  const listed = elements.map((e) => `- ${e.name} (${e.type}, lines ${e.startLine}-${e.endLine})`).join('\n');
  const partNote = part
    ? `Part ${part.index + 1} of ${part.count}: lines ${part.firstLine}-${part.lastLine} of the file. Report only the elements in these lines.\n`
    : '';
  // Replacers, not strings: code holds `$&` and `$'`, which a replacement string would expand.
  return PROMPT_TEMPLATE.replace('{{file_path}}', () => path)
    .replace('{{language}}', () => language)
    .replace('{{part}}', () => partNote)
    .replace('{{elements}}', () => listed || '(none: give the summary only)')
    .replace('{{code}}', () => numbered);
}
