/**
 * The analysis schema and prompt from resources/ocvector/, and the ajv
 * validator for the model's answers. PROMPT_VERSION changes whenever either
 * file changes, so cached answers from another prompt are never reused.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';

const resources = fileURLToPath(new URL('../../../resources/ocvector/', import.meta.url));

export const RESULT_SCHEMA: Record<string, unknown> = JSON.parse(
  readFileSync(`${resources}result-schema.json`, 'utf8'),
);
const PROMPT_TEMPLATE = readFileSync(`${resources}ocvector-prompt.txt`, 'utf8');
const SCHEMA_TEXT = JSON.stringify(RESULT_SCHEMA);

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

const validateAnswer = new Ajv({ allErrors: true, strict: false }).compile<ModelAnswer>(RESULT_SCHEMA);

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

/** The prompt for a file (or one part of it), its lines numbered so the model can cite them. */
export function buildPrompt(path: string, language: string, lines: string[], part: PromptPart | undefined): string {
  const first = part?.firstLine ?? 1;
  const numbered = lines.map((line, i) => `${first + i}| ${line}`).join('\n');
  const partNote = part
    ? `Part ${part.index + 1} of ${part.count}: lines ${part.firstLine}-${part.lastLine} of the file. Report only the elements in these lines.\n`
    : '';
  return PROMPT_TEMPLATE.replace('{{schema}}', SCHEMA_TEXT)
    .replace('{{file_path}}', path)
    .replace('{{language}}', language)
    .replace('{{part}}', partNote)
    .replace('{{code}}', numbered);
}
