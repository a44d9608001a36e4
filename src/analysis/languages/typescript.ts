/** TypeScript: read by the extractor of its own (ast/typescript.ts), which TSX and JavaScript share. */
import { defineLanguage } from '../language-record.js';

/** Calls and `new` in the TypeScript, TSX and JavaScript grammars alike. */
export const JAVASCRIPT_CALLS = ['call_expression', 'new_expression'];

export const typescript = defineLanguage({
  name: 'typescript',
  extensions: ['.ts', '.mts', '.cts'],
  interpreters: ['ts-node', 'tsx'],
  aliases: ['ts'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-typescript', export: 'typescript' },
    callTypes: JAVASCRIPT_CALLS,
    extractor: 'typescript',
  },
});
