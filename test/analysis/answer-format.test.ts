/**
 * The schema a model writes under (answer-format.ts): a narrowing of the result schema that fixes
 * the elements asked about, so that an answer under it passes ajv against the full schema, and a
 * server's grammar built from it cannot name another element, cite other lines, or run on.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/internal.js';
import { ANSWER_FORMAT, answerFormatFor, MAX_ANSWER_ELEMENTS } from '../../src/analysis/llm/answer-format.js';
import { buildPrompt, checkAnswer, RESULT_SCHEMA } from '../../src/analysis/llm/resources.js';

const text = readFileSync(new URL('../fixtures/analysis/faiss-index.ts.txt', import.meta.url), 'utf8');
const file = analyzeText('src/native/faiss-index.ts', text);
const asked = file.elements.filter((e) => !e.description).slice(0, MAX_ANSWER_ELEMENTS);
const ajv = new Ajv({ allErrors: true, strict: false });

/** What a model writes under the format: the fixed parts as given, a description of its own. */
function answerUnder(elements = asked) {
  return {
    'file-path': file.path,
    language: 'typescript',
    summary: 'A typed facade over the native FAISS index.',
    imports: [],
    elements: elements.map((e) => ({
      'property-type': e.type,
      name: e.name,
      'access-modifier': e.access,
      'start-line': e.startLine,
      'end-line': e.endLine,
      signature: '',
      description: `What ${e.name} does.`,
      dependencies: [{ type: 'calls', target: 'checkVectors' }],
    })),
  };
}

describe('the format a model answers under', () => {
  it('is a narrowing: an answer under it passes the full result schema', () => {
    const format = answerFormatFor(file.path, 'typescript', asked);
    const answer = answerUnder();
    expect(ajv.validate(format, answer)).toBe(true);
    expect(checkAnswer(JSON.stringify(answer)).ok).toBe(true);
    expect(ajv.validate(ANSWER_FORMAT, answer)).toBe(true);
  });

  it('fixes the elements: another name, other lines, one more or one fewer is refused', () => {
    const format = answerFormatFor(file.path, 'typescript', asked);
    const renamed = answerUnder();
    renamed.elements[0]!.name = 'InventedHelper';
    const moved = answerUnder();
    moved.elements[1]!['start-line'] += 40;
    for (const wrong of [renamed, moved, answerUnder(asked.slice(1)), answerUnder([...asked, asked[0]!])])
      expect(ajv.validate(format, wrong)).toBe(false);
    // The full schema alone would take each of them: the narrowing is what stops a model.
    for (const wrong of [renamed, moved]) expect(ajv.validate(RESULT_SCHEMA, wrong)).toBe(true);
  });

  it('bounds what the model writes: descriptions, dependencies, imports and the fields the tree gives', () => {
    const format = answerFormatFor(file.path, 'typescript', asked);
    const long = answerUnder();
    long.elements[0]!.description = 'x'.repeat(301);
    const manyDependencies = answerUnder();
    manyDependencies.elements[0]!.dependencies = Array.from({ length: 9 }, (_, i) => ({
      type: 'calls',
      target: `f${i}`,
    }));
    const withImports = { ...answerUnder(), imports: [{ module: 'node:fs', line: 1 }] };
    const withParameters = answerUnder();
    Object.assign(withParameters.elements[0]!, { parameters: [{ name: 'x', type: 'number' }] });
    for (const wrong of [long, manyDependencies, withImports, withParameters])
      expect(ajv.validate(format, wrong)).toBe(false);
  });
});

describe('the prompt', () => {
  it("keeps code as written, `$&` and `$'` included (a replacement string would expand them)", () => {
    const code = ["const quoted = text.replace(/x/g, '[$&]');", "const rest = line.replace('a', \"$'\");"];
    const prompt = buildPrompt('src/quote.ts', 'typescript', code, undefined, [
      { name: 'quoted', type: 'constant', startLine: 1, endLine: 1 },
    ]);
    expect(prompt).toContain(`1| ${code[0]}`);
    expect(prompt).toContain(`2| ${code[1]}`);
    expect(prompt).toContain('- quoted (constant, lines 1-1)');
    // The shape is the grammar's to hold: the prompt does not show the schema, whose annotations a small model copied.
    expect(prompt).not.toContain('"$schema"');
    expect(prompt).not.toContain('what the file is for."');
  });
});
