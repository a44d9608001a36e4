/**
 * The schema a model writes its answer under (Ollama's `format`, shown in the prompt too): the
 * result schema narrowed to what reconciliation reads, with every string and list bounded.
 * Answers are still validated against the full result schema with ajv; a narrowed answer is a
 * valid one (the fields left out are optional, and `imports` is required but may be empty).
 *
 * Why: a small model on a CPU writes 5 to 30 tokens a second, and under the full schema
 * Qwen2.5-Coder-0.5B wrote every optional field (parameters, return types, properties, each
 * import) for every element, which the syntax tree already gives exactly: a call for a file of
 * 200 lines ran past the 2-minute deadline. The grammar a server builds from this schema cannot
 * write what it leaves out, nor run on in a loop past its bounds (docs/models.md).
 */
import { RESULT_SCHEMA } from './result-schema.js';

/** The most elements one answer lists: the parts planner (parts.ts) asks about fewer at a time. */
export const MAX_ANSWER_ELEMENTS = 6;

/** Bounds on what the model writes, in characters or items. */
const BOUNDS = { summary: 300, signature: 200, description: 300, name: 120, dependencies: 8 } as const;

type Schema = Record<string, unknown>;

/** A JSON schema an answer is written under. */
export type AnswerFormat = Readonly<Schema>;

function narrowed(): Schema {
  const schema = structuredClone(RESULT_SCHEMA) as Schema & {
    properties: Record<string, Schema> & {
      elements: Schema & { items: Schema & { properties: Record<string, Schema> } };
    };
  };
  delete schema.$schema;
  delete schema.$id;
  const top = schema.properties;
  top.summary = { ...top.summary, maxLength: BOUNDS.summary };
  // The syntax tree reads the imports; the model is spared writing them.
  top.imports = { ...top.imports, maxItems: 0 };
  top.elements = { ...top.elements, maxItems: MAX_ANSWER_ELEMENTS };
  const element = top.elements.items.properties;
  for (const unread of ['parameters', 'return-type', 'properties']) delete element[unread];
  element.name = { ...element.name, maxLength: BOUNDS.name };
  element.signature = { ...element.signature, maxLength: BOUNDS.signature };
  element.description = { ...element.description, maxLength: BOUNDS.description };
  element.dependencies = { ...element.dependencies, maxItems: BOUNDS.dependencies };
  return schema;
}

export const ANSWER_FORMAT: Readonly<Schema> = narrowed();

/** What the format of one call needs of an element the tree found. */
export interface FormatElement {
  name: string;
  type: string;
  access: string;
  startLine: number;
  endLine: number;
}

/**
 * The format of one call: ANSWER_FORMAT with the elements fixed to the ones asked about, in
 * order, their names, kinds, access and lines given (`const`), so that the model writes only a
 * summary, descriptions and dependencies. Qwen2.5-Coder-0.5B, asked to find the elements
 * itself, listed one class 16 times at made-up lines until the bound stopped it.
 */
export function answerFormatFor(path: string, language: string, elements: readonly FormatElement[]): AnswerFormat {
  const format = structuredClone(ANSWER_FORMAT) as Schema & { properties: Record<string, Schema> };
  const top = format.properties;
  const item = (top.elements as { items: Schema & { properties: Record<string, Schema> } }).items;
  top['file-path'] = { type: 'string', const: path };
  top.language = { type: 'string', const: language };
  top.elements = {
    type: 'array',
    items: elements.map((element) => ({
      ...item,
      properties: {
        ...item.properties,
        'property-type': { type: 'string', const: element.type },
        name: { type: 'string', const: element.name },
        'access-modifier': { type: 'string', const: element.access },
        'start-line': { type: 'integer', const: element.startLine },
        'end-line': { type: 'integer', const: element.endLine },
        signature: { type: 'string', maxLength: 0 },
      },
    })),
    minItems: elements.length,
    maxItems: elements.length,
  };
  return format;
}
