/**
 * Evaluation sets: queries with the files (and optionally the elements)
 * that answer them, as JSON (an array, or `{ "queries": [...] }`) or JSONL
 * (one query per line). Every entry is checked; a bad one is reported with
 * its file and line, never skipped in silence.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { EvaluationError } from './errors.js';

export interface ExpectedElement {
  /** Root-relative, forward slashes. */
  path: string;
  /** The element's name as the index records it (`Class.method`). */
  name?: string;
  /** Its lines: a result overlapping them counts (with `name`, both must agree). */
  start_line?: number;
  end_line?: number;
}

export interface EvalQuery {
  id: string;
  query: string;
  /** Files that answer the query (root-relative). */
  expected_paths: string[];
  /** Elements that answer it, for element-level scores. */
  expected_elements?: ExpectedElement[];
}

const QUERY_SCHEMA = {
  type: 'object',
  properties: {
    id: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] },
    query: { type: 'string', minLength: 1, maxLength: 2_000 },
    expected_paths: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    expected_elements: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          start_line: { type: 'integer', minimum: 1 },
          end_line: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
        anyOf: [{ required: ['name'] }, { required: ['start_line', 'end_line'] }],
      },
    },
  },
  required: ['id', 'query', 'expected_paths'],
};

const validate = new Ajv({ allErrors: true }).compile<EvalQuery>(QUERY_SCHEMA);

/** Reads and checks a set; throws EvaluationError BAD_EVAL_SET naming the file, the line and the problem. */
export function loadEvalSet(file: string): EvalQuery[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new EvaluationError(
      `cannot read the evaluation set ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      'BAD_EVAL_SET',
    );
  }
  return parseEvalSet(text, file);
}

export function parseEvalSet(text: string, file = '<input>'): EvalQuery[] {
  const entries: { value: unknown; line: number }[] = [];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && /^\{\s*"queries"\s*:/.test(trimmed))) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new EvaluationError(`${file}: not valid JSON (${(error as Error).message})`, 'BAD_EVAL_SET');
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { queries?: unknown }).queries;
    if (!Array.isArray(list)) throw new EvaluationError(`${file}: "queries" must be an array`, 'BAD_EVAL_SET');
    list.forEach((value, i) => entries.push({ value, line: i + 1 }));
  } else {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        entries.push({ value: JSON.parse(line), line: i + 1 });
      } catch (error) {
        throw new EvaluationError(`${file}:${i + 1}: not valid JSON (${(error as Error).message})`, 'BAD_EVAL_SET');
      }
    });
  }
  if (entries.length === 0) throw new EvaluationError(`${file}: no queries`, 'BAD_EVAL_SET');

  const seen = new Set<string>();
  return entries.map(({ value, line }) => {
    if (!validate(value)) {
      const problems = (validate.errors ?? [])
        .map((e) => `${e.instancePath.slice(1) || 'entry'} ${e.message}`)
        .join('; ');
      throw new EvaluationError(`${file}:${line}: ${problems}`, 'BAD_EVAL_SET');
    }
    const query = { ...value, id: String(value.id) };
    if (seen.has(query.id))
      throw new EvaluationError(`${file}:${line}: the id ${query.id} is used twice`, 'BAD_EVAL_SET');
    seen.add(query.id);
    return query;
  });
}
