import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callSites } from '../../src/analysis/ast/calls.js';
import { parse } from '../../src/analysis/ast/parsers.js';
import { analysisOf, type CodeAnalysis, LANGUAGES } from '../../src/analysis/languages.js';
import type { Language } from '../../src/analysis/types.js';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const CODE: [Language, CodeAnalysis][] = LANGUAGES.flatMap((language) => {
  const analysis = analysisOf(language);
  return analysis.kind === 'code' ? [[language, analysis] as [Language, CodeAnalysis]] : [];
});

/** The named node types a grammar declares (its package's src/node-types.json, or that of ocvector's shipped copy). */
function namedNodeTypes({ grammar }: CodeAnalysis): Set<string> {
  const candidates: string[] = [];
  try {
    const root = dirname(require.resolve(`${grammar.package}/package.json`));
    candidates.push(join(root, grammar.export ?? '', 'src', 'node-types.json'));
  } catch {
    // An optional grammar npm left out: its shipped copy below.
  }
  if (grammar.shipped) candidates.push(join(ROOT, 'grammars', grammar.shipped, 'src', 'node-types.json'));
  const file = candidates.find((path) => existsSync(path));
  if (!file) throw new Error(`no node-types.json for ${grammar.package} (looked in ${candidates.join(', ')})`);
  const types = JSON.parse(readFileSync(file, 'utf8')) as { type: string; named: boolean; subtypes?: unknown }[];
  // A supertype (`_expression`) is never a node of the tree: it would match nothing.
  return new Set(types.filter((t) => t.named && !t.subtypes).map((t) => t.type));
}

describe('call node types, in each language record', () => {
  it.each(CODE)('%s: every call type is a node type of its grammar', (_language, analysis) => {
    const types = namedNodeTypes(analysis);
    expect(analysis.callTypes.filter((type) => !types.has(type))).toEqual([]);
  });

  // A node type that is a call in one grammar is a call in every grammar that
  // has it: a language cannot miss a call node because another named it first.
  it.each(CODE)('%s: names every call type of the other languages that its grammar has', (_language, analysis) => {
    const known = new Set(CODE.flatMap(([, other]) => other.callTypes));
    const types = namedNodeTypes(analysis);
    expect([...known].filter((type) => types.has(type) && !analysis.callTypes.includes(type))).toEqual([]);
  });

  it('finds calls through the types it is given, and no others', () => {
    const source = 'def main():\n    run(1)\n    Store.open(path)\n';
    const root = parse('python', source).rootNode;
    const python = CODE.find(([language]) => language === 'python')![1];
    expect(callSites(root, source, python.callTypes)).toEqual([
      { name: 'run', line: 2 },
      { name: 'open', line: 3 },
    ]);
    expect(callSites(root, source, ['call_expression'])).toEqual([]);
    expect(callSites(root, source, [])).toEqual([]);
  });
});
