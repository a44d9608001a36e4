import { describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/internal.js';
import { loadedGrammars } from '../../src/analysis/ast/parsers.js';

// A file of its own: vitest gives each test file fresh modules, so nothing
// else has loaded a grammar in this thread yet.
describe('grammars load lazily', () => {
  it('a TypeScript-only run pays for the TypeScript grammar alone', () => {
    expect(loadedGrammars()).toEqual([]);
    analyzeText('src/a.ts', 'export function a(): number { return 1; }\n');
    analyzeText('README.md', '# A\n\ntext\n');
    analyzeText('package.json', '{"name": "a"}\n');
    expect(loadedGrammars()).toEqual(['typescript']);
    analyzeText('main.go', 'package main\n\nfunc main() {}\n');
    expect(loadedGrammars()).toEqual(['typescript', 'go']);
  });
});
